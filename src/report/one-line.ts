import { BIDI_CLASS } from '../formats/bidi.js';

/** Free text (a step name, a session, a reason) made one line: control characters and line breaks become a space. */
const CONTROL = new RegExp(`[\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029${BIDI_CLASS}]+`, 'g');

export const oneLine = (text: string) => text.replace(CONTROL, ' ');
