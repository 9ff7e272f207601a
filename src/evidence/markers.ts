/**
 * Placeholder markers in a line of prose: `TODO`, `TBD`, `FIXME`, `XXX`
 * where they stand as markers, in any case and in letters that only look
 * like them (`fold.ts`: Cyrillic `ТОDO`, full-width `ｔｏｄｏ`, a zero-width
 * space inside). A marker is
 * - any of the four in capitals, as a word (as before);
 * - `tbd`, `fixme` or `xxx` in any case, as a word: no English word is spelled so;
 * - any of them followed by a colon (`todo: users`), or in brackets (`(todo)`);
 * - any of them alone on a line, a list item, a heading or a table cell, but
 *   for punctuation (`todo`, `- Todo.`, `| todo |`).
 * "todo" as an English word stays writable: "the todo list", "Todo items
 * sync", "the Todo model". Pure.
 */
import { fold } from './fold.js';

const WORD = 't[o0]d[o0]|tbd|f[i1]xme|xxx';
/** Any of the four at all: most lines hold none, and are done with in one test. */
const ANY = new RegExp(WORD, 'i');
const CAPITALS = new RegExp(`\\b(T[O0]D[O0]|TBD|F[I1]XME|XXX)\\b`);
const NOT_A_WORD = /\b(tbd|f[i1]xme|xxx)\b/i;
const COLON = new RegExp(`\\b(${WORD})\\s*:`, 'i');
const BRACKETED = new RegExp(`[[({<]\\s*(${WORD})\\s*[\\])}>]`, 'i');
/** Where an item's text starts: after a quote, a heading's marks, a list marker, a checkbox. */
const ITEM_START = /^\s*(?:>\s*)*(?:#{1,6}\s+)?(?:(?:[-*+]|\d{1,9}[.)])\s+)?(?:\[[ xX]\]\s+)?/;
const ALONE = new RegExp(`^(${WORD})\\s*[-–—.!?…;,]*$`, 'i');

/** The text a marker is looked for in: folded, emphasis marks out (`**todo**:`). */
const plainOf = (text: string) => fold(text).replace(/[*_~]/g, '');

/** The marker a line holds, as it reads folded (`TODO`, `todo`), or undefined. `isTable`: the line is a table row, each cell an item. */
export function markerIn(text: string, isTable = false): string | undefined {
  const plain = plainOf(text);
  if (!ANY.test(plain)) return undefined;
  const found = CAPITALS.exec(plain) ?? NOT_A_WORD.exec(plain) ?? COLON.exec(plain) ?? BRACKETED.exec(plain);
  if (found) return found[1];
  const items = isTable ? plain.split('|') : [plain.replace(ITEM_START, '')];
  for (const item of items) {
    const alone = ALONE.exec(item.trim());
    if (alone) return alone[1];
  }
  return undefined;
}

/** Whether the marker found reads so in the line as typed, or only once folded (look-alike letters, full-width, invisible characters). */
export const disguised = (text: string, marker: string): boolean => !text.replace(/[*_~]/g, '').includes(marker);
