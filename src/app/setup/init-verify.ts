/**
 * The project's test command in the settings `init` writes (issue 29, point
 * 4): the command found in the project's files (`formats/test-command.ts`)
 * as `verify:` in `.autopilot/config.yml`, under a header saying what it is
 * for; where none is found, the header and a commented line saying so, which
 * a later `init` fills in once the project has one. A `verify:` a person
 * wrote is kept. `uninstall` takes out exactly the block (header and its
 * lines).
 */
import type { Removal } from '../../clients/client.js';
import { leftOver } from '../../clients/config-files.js';
import { verifyLine } from '../../formats/settings.js';
import { LOOKED_AT, type FoundTestCommand } from '../../formats/test-command.js';

export const VERIFY_HEADER = "# The project's tests: `autopilot exec` runs this command, and a report's Result counts only a run of it.";
const FOUND = '# (found by autopilot init in ';
const NONE = '# None found yet: autopilot looks again when a step needs it (';
const PLACEHOLDER = '# verify: <command>';

/** Whether a line belongs to the block under the header. */
const ours = (line: string) => line.startsWith(FOUND) || line.startsWith(NONE) || line === PLACEHOLDER || /^verify\s*:/.test(line);

function blockLines(found: FoundTestCommand | undefined): string[] {
  if (!found) return [VERIFY_HEADER, `${NONE}${LOOKED_AT}).`, PLACEHOLDER];
  return [VERIFY_HEADER, `${FOUND}${found.where})`, verifyLine(found.command)];
}

/** The settings with the test command found, unless they name one (a person's `verify:` is kept); undefined when nothing changes. */
export function withVerifyLines(text: string | undefined, found: FoundTestCommand | undefined): string | undefined {
  const lines = (text ?? '').split('\n');
  if (lines.some((l) => /^verify\s*:/.test(l.replace(/\r$/, '')))) return undefined;
  const at = lines.findIndex((l) => l.replace(/\r$/, '') === VERIFY_HEADER);
  if (at >= 0) {
    // The block of an init that found none: filled in once a command is found.
    if (!found) return undefined;
    let end = at + 1;
    while (end < lines.length && ours(lines[end]!.replace(/\r$/, ''))) end++;
    return [...lines.slice(0, at), ...blockLines(found), ...lines.slice(end)].join('\n');
  }
  const body = text ?? '';
  const prefix = body === '' ? '' : body.endsWith('\n') ? `${body}\n` : `${body}\n\n`;
  return `${prefix}${blockLines(found).join('\n')}\n`;
}

/** The settings without the block `withVerifyLines` wrote (and the blank line that set it apart). */
export function withoutVerifyLines(text: string): Removal {
  const all = text.split('\n');
  const kept: string[] = [];
  for (let i = 0; i < all.length; i++) {
    if (all[i]!.replace(/\r$/, '') !== VERIFY_HEADER) {
      kept.push(all[i]!);
      continue;
    }
    while (i + 1 < all.length && ours(all[i + 1]!.replace(/\r$/, ''))) i++;
    const next = all[i + 1];
    if (kept.length > 0 && kept.at(-1)!.trim() === '' && (next === undefined || next.trim() === '')) kept.pop();
  }
  return leftOver(text, kept.join('\n'));
}

/** The settings naming `command` as the project's tests (a person's `repin --verify`): the `verify:` line replaced, or the block added. */
export function settingsNaming(text: string | undefined, command: string): string {
  const lines = (text ?? '').split('\n');
  const at = lines.findIndex((l) => /^verify\s*:/.test(l));
  if (at >= 0) return [...lines.slice(0, at), verifyLine(command), ...lines.slice(at + 1)].join('\n');
  const header = lines.findIndex((l) => l.replace(/\r$/, '') === VERIFY_HEADER);
  if (header >= 0) {
    let end = header + 1;
    while (end < lines.length && ours(lines[end]!.replace(/\r$/, ''))) end++;
    return [...lines.slice(0, header), VERIFY_HEADER, verifyLine(command), ...lines.slice(end)].join('\n');
  }
  const body = text ?? '';
  const prefix = body === '' ? '' : body.endsWith('\n') ? `${body}\n` : `${body}\n\n`;
  return `${prefix}${VERIFY_HEADER}\n${verifyLine(command)}\n`;
}
