/**
 * `autopilot repin`'s part for the project's test command (issue 29, point
 * 4): a person names it (`--verify "<command>"`, written to the settings and
 * pinned), says there is none (`--verify none --reason "<why>"`), or, with
 * neither, adopts what changed since the run pinned it (the settings'
 * `verify:`, or what the command runs: a package.json script, a Makefile
 * rule, a script file). Journaled as a `verify_pinned` by the person.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { InputError } from '../../errors.js';
import type { JournalEntry } from '../../formats/journal-line.js';
import type { Position } from '../../formats/pointer/position.js';
import type { Settings } from '../../formats/settings.js';
import { FREE_TEXT_MAX_LENGTH } from '../../limits.js';
import { settingsNaming } from './init-verify.js';
import type { Loaded } from '../transaction/load-state.js';
import { NO_TESTS, pinEntry, verifyNow } from '../transaction/verify.js';

/** What a person asked of `repin` about the tests. */
export interface VerifyAsked {
  verify?: string;
  reason?: string;
}

export interface VerifyRepin {
  entry: JournalEntry;
  change: string;
  /** The settings file, rewritten to name the command a person gave. */
  file?: { path: string; text: string };
}

function asked(command: string | undefined, reason: string | undefined): { command: string | null; reason?: string } | undefined {
  if (command === undefined) {
    if (reason !== undefined)
      throw new InputError({ message: '--reason goes with `--verify none`', expected: 'autopilot repin --verify none --reason "<why>"' });
    return undefined;
  }
  const line = command.trim();
  if (line === '' || /[\r\n]/.test(line) || line.length > FREE_TEXT_MAX_LENGTH)
    throw new InputError({
      message: '--verify is not a command line',
      expected: 'the project\'s test command on one line: `--verify "npm test"`',
      received: command,
    });
  if (line !== NO_TESTS) return { command: line };
  if (!reason?.trim())
    throw new InputError({ message: '`--verify none` needs the reason the project has no tests', expected: 'autopilot repin --verify none --reason "<why>"' });
  return { command: null, reason: reason.trim() };
}

/** The test command's repin, or undefined when there is nothing to adopt. */
export function repinVerify(loaded: Loaded, settings: Pick<Settings, 'verify'>, position: Position, given: VerifyAsked): VerifyRepin | undefined {
  const { repo } = loaded;
  const wanted = asked(given.verify, given.reason);
  if (wanted) {
    const entry = pinEntry(repo, position, { ...wanted, by: 'person' });
    const path = join(repo.root, '.autopilot', 'config.yml');
    const text = settingsNaming(existsSync(path) ? readFileSync(path, 'utf8') : undefined, wanted.command ?? NO_TESTS);
    const change = wanted.command === null ? `the project has no tests (${wanted.reason})` : `the project's tests are \`${wanted.command}\``;
    return { entry, change, file: { path, text } };
  }
  const now = verifyNow(loaded, settings);
  if (!now.pinned) {
    if (!now.toTake) return undefined;
    return { entry: pinEntry(repo, position, { command: now.toTake.command, by: 'person' }), change: `the project's tests are \`${now.toTake.command}\`` };
  }
  if (now.configured === undefined && now.changed.length === 0) return undefined;
  const command = now.configured ?? now.pinned.command;
  if (command === NO_TESTS || command === null) {
    if (now.pinned.command === null) return undefined;
    throw new InputError({
      message: '`verify: none` in the settings needs the reason the project has no tests',
      expected: 'autopilot repin --verify none --reason "<why>"',
    });
  }
  const why = now.configured !== undefined ? `the settings name \`${command}\` (the run had \`${now.pinned.command ?? NO_TESTS}\`)` : now.changed.join('; ');
  return { entry: pinEntry(repo, position, { command, by: 'person' }), change: `the project's tests: \`${command}\` as it is now (${why})` };
}
