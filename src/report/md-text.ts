/** Text from a journal, a flow or an agent made safe inside Markdown that people paste (a report, a breadcrumb). */
import { oneLine } from './one-line.js';

/**
 * One safe table cell or line of inline text: one line; no pipe that splits a
 * row; no HTML a renderer would run (`<img>`, `</details>`); no Markdown that
 * would become a link, an image or emphasis; no `@name` that would notify
 * someone, and no bare address a renderer would turn into a link (a word
 * joiner after the `@` and inside `://` and `www.`).
 */
export function mdText(text: string): string {
  return oneLine(text)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/([\\|`*_[\]!#~])/g, '\\$1')
    .replace(/@/g, '@\u2060')
    .replace(/:\/\//g, ':\u2060//')
    .replace(/www\./gi, (w) => `${w.slice(0, 3)}\u2060.`)
    .trim();
}
