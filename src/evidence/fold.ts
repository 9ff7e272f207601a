/**
 * Text as a judge compares it, not as it was typed: letters that only look
 * alike are one letter, and what a reader cannot see is not there. `fold`
 * maps compatibility forms to plain ones (full-width `ＴＯＤＯ`, `𝐓𝐎𝐃𝐎`),
 * drops invisible format characters (zero-width spaces, soft hyphens) and
 * accents, and maps the Cyrillic, Greek and small-capital letters that look
 * like Latin ones to those (`ТОDO` with a Cyrillic `Т` and `О` is `TODO`).
 * `comparable` also drops HTML comments, case and the spacing, for telling
 * whether a file changed in what a reader sees (the freshness hashes).
 * Pure; for matching only, never shown.
 */

/**
 * Letters of other scripts drawn like Latin ones, each above the Latin letter
 * it passes for (a subset of Unicode's confusables: those a keyboard or a
 * copy produces): Cyrillic, Greek, small capitals, Armenian and Cherokee.
 */
const LOOK_ALIKE = 'АВЕКМНОРСТХЅІЈҮҺԀԚԜӀавекмнорстухѕіјүһԁԛԝӏΑΒΕΖΗΙΚΜΝΟΡΤΥΧαικνορτυχᴀʙᴄᴅᴇꜰɢʜɪᴊᴋʟᴍɴᴏᴘʀꜱᴛᴜᴠᴡʏᴢօՕᎢᎠᎻᎬᏟᏔ';
const LATIN = /*       */ 'ABEKMHOPCTXSIJYHDQWIabekmhopctyxsijyhdqwlABEZHIKMNOPTYXaikvoptuxabcdefghijklmnoprstuvwyzoOTDHECW';
const LOOK_ALIKES = new Map([...LOOK_ALIKE].map((c, i) => [c, LATIN[i]!]));

/** Past printable ASCII (a control character too, which maps to itself). */
const PAST_ASCII = /[^\t\n\r\x20-\x7e]/;
const OTHER = /[^\t\n\r\x20-\x7e]/g;
const INVISIBLE_OR_MARK = /[\p{Cf}\p{Mn}]/gu;

/** The text with compatibility forms, accents, invisible characters and look-alike letters folded to plain Latin. */
export function fold(text: string): string {
  if (!PAST_ASCII.test(text)) return text;
  return text
    .normalize('NFKD')
    .replace(INVISIBLE_OR_MARK, '')
    .replace(OTHER, (c) => LOOK_ALIKES.get(c) ?? c);
}

/** What a reader sees of a text, for telling whether it changed: folded, HTML comments out, one case, spacing collapsed. */
export function comparable(text: string): string {
  return fold(text.replace(/^\uFEFF/, ''))
    .replace(/<!--[\s\S]*?(?:-->|$)/g, ' ')
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .trim();
}
