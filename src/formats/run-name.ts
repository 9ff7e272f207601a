/**
 * A run's name (CONTRACT rule 12): one path segment of lower-case ASCII
 * letters, digits, `-`, `_` and `.`, starting with a letter or a digit, at
 * most 64 characters, and not `default`, the name of the run with no name.
 */
import { InputError } from '../errors.js';

/** The run a command acts on when none is named, and the name `runs` lists it by. */
export const DEFAULT_RUN = 'default';

export const RUN_NAME_MAX_LENGTH = 64;

const RUN_NAME = /^[a-z0-9][a-z0-9._-]*$/;

/** Whether `name` may name a run. */
export const isRunName = (name: string): boolean => name !== DEFAULT_RUN && name.length <= RUN_NAME_MAX_LENGTH && RUN_NAME.test(name);

/** `name` if it may name a run, else exit 2 saying why (`from`: where it was given, `--run` or `$AUTOPILOT_RUN`). */
export function checkRunName(name: string, from: string): string {
  if (isRunName(name)) return name;
  throw new InputError({
    message: `${from}: "${name.slice(0, 40)}${name.length > 40 ? '…' : ''}" ${name === DEFAULT_RUN ? 'is the run with no name: leave the run out to act on it' : 'is not a run name'}`,
    expected: `lower-case letters, digits, - _ . (starting with a letter or a digit, at most ${RUN_NAME_MAX_LENGTH} characters), e.g. \`--run login-page\``,
    received: `${name.length} characters`,
  });
}

/** A command line as it answers run `run`: a named run's with `--run NAME` after the command's own words (rule 10: a person's command takes every option after its command word). */
export const commandForRun = (line: string, run: string): string => (run === DEFAULT_RUN ? line : `${line} --run ${run}`);
