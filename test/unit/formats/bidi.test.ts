/**
 * Bidirectional controls (U+202E RIGHT-TO-LEFT OVERRIDE and its kin) reorder
 * what a terminal, an editor or a review shows: escaped in text for a person,
 * replaced in the pointer, in commit messages and trailers, and in reports,
 * like the other control characters.
 */
import { describe, expect, it } from 'vitest';
import { BIDI_CLASS, isBidiControl } from '../../../src/formats/bidi.js';
import { oneLine as pointerLine } from '../../../src/formats/pointer/serialize-pointer.js';
import { commitText, oneLine as commitLine } from '../../../src/git/progress-message.js';
import { safe } from '../../../src/render/text.js';
import { oneLine as reportLine } from '../../../src/report/one-line.js';

const BIDI = ['\u061c', '\u200e', '\u200f', '\u202a', '\u202b', '\u202c', '\u202d', '\u202e', '\u2066', '\u2067', '\u2068', '\u2069'];
const anyBidi = new RegExp(`[${BIDI_CLASS}]`);

describe('bidirectional controls', () => {
  it(`${BIDI.length} of ${BIDI.length} are known, and letters of right-to-left scripts are not`, () => {
    for (const ch of BIDI) expect(isBidiControl(ch.codePointAt(0)!), ch.codePointAt(0)!.toString(16)).toBe(true);
    for (const ch of ['a', 'א', 'ع', '\u200d', '\u2028']) expect(isBidiControl(ch.codePointAt(0)!)).toBe(false);
  });

  it('are shown escaped in the terminal: `\\u202e`, never the character', () => {
    expect(safe('done\u202Etxt.exe')).toBe('done\\u202etxt.exe');
    for (const ch of BIDI) expect(safe(`a${ch}b`)).not.toMatch(anyBidi);
    // Right-to-left text itself is left alone.
    expect(safe('שלום')).toBe('שלום');
  });

  it('never reach the pointer, a commit subject, body or trailer, or a report', () => {
    for (const ch of BIDI) {
      const text = `1 — review ${ch}evil`;
      expect(pointerLine(text)).not.toMatch(anyBidi);
      expect(commitLine(text)).not.toMatch(anyBidi);
      expect(reportLine(text)).not.toMatch(anyBidi);
      expect(commitText({ message: `subject ${ch}x\n\nbody ${ch}y`, trailers: { 'Autopilot-Step': `2 ${ch}z` } })).not.toMatch(anyBidi);
    }
  });
});
