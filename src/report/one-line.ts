/** Free text (a step name, a session, a reason) made one line: control characters and line breaks become a space. */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g;

export const oneLine = (text: string) => text.replace(CONTROL, ' ');
