/**
 * Unicode's bidirectional controls (U+061C, U+200E–U+200F, U+202A–U+202E,
 * U+2066–U+2069): invisible, they reorder what a terminal, an editor or a
 * code review shows ("Trojan Source"), so text from an agent or a file could
 * make a line read as something it is not. Wherever other control characters
 * are escaped or replaced, these are too.
 */
export const isBidiControl = (code: number): boolean =>
  code === 0x061c || code === 0x200e || code === 0x200f || (code >= 0x202a && code <= 0x202e) || (code >= 0x2066 && code <= 0x2069);

/** The same, for a character class: `[${BIDI_CLASS}]`. */
export const BIDI_CLASS = '\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069';
