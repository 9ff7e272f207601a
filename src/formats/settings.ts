/**
 * The repository's settings, `.autopilot/config.yml`:
 *
 * ```yaml
 * lease:
 *   stale_after_minutes: 10   # another session's lease on this machine is stale after this
 *   remote: origin            # also hold the lease on this git remote (agents on several machines)
 *   remote_timeout_seconds: 5 # a remote that has not answered in this long is given up on
 *   remote_stale_after_minutes: 30 # off by default: the remote lease of a session quiet this long
 *                             # is taken over unattended (a fleet's choice: see docs/sessions.md)
 * commit: false               # progress commits off. Absent (the default): a commit after each step that
 *                             # finishes something, where git can take one (a branch with a first commit);
 *                             # `true`: the same, and a command refuses where git cannot take one;
 *                             # `evidence`: only the state and the step's done_when files
 * verify: npm test            # the project's test command (init finds it): `autopilot exec` runs it, and a
 *                             # report's Result counts only a run of it (docs/flow-format.md, "Outputs and their checks")
 * follow_through: false       # no follow-through notice (on by default: work found away from the
 *                             # last action's next target is said once, and journaled)
 * ```
 *
 * Pure: text → settings or the problem with them; settings → text. The YAML
 * parser is passed in (`app/transaction/parse-yaml.ts`, a bundle of its own), so reading
 * the settings costs start-up nothing when a repository has none. Reading
 * the file, its size limit and the environment's override are
 * `app/transaction/settings.ts`.
 */
import type { Problem } from '../errors.js';
import { DEFAULT_STALE_MS, FREE_TEXT_MAX_LENGTH, REMOTE_NAME_MAX_LENGTH, REMOTE_TIMEOUT_MS } from '../limits.js';

export interface Settings {
  /** How long another session's lease on this machine may be quiet before it is stale. */
  staleMs: number;
  /**
   * A progress commit after every step command that finishes something.
   * `auto` (no `commit:` line, the default): what changed in the work tree
   * during the step, with the pointer and the journal, wherever git can take
   * a commit (a branch with a first commit, no merge or rebase under way);
   * elsewhere none, said. `work` (`commit: true`): the same, asked for, so a
   * command refuses where git cannot take one; `evidence` only the state and
   * the step's done_when files, asked for; false (`commit: false`): none
   * unless a command asks (`--commit`).
   */
  commit: CommitSetting;
  /** `lease: { remote: origin }`: the lease is also kept on that git remote (agents on several machines). */
  remote?: string;
  /** How long a git remote may stay silent before a command gives up on it. */
  remoteTimeoutMs: number;
  /**
   * `lease.remote_stale_after_minutes`: the remote lease of another session
   * whose heartbeat is older than this is taken over unattended. Absent (the
   * default): never taken for its age, only by a person's `--take-over`.
   */
  remoteStaleMs?: number;
  /**
   * `verify`: the project's test command, one line (`init` writes the one it
   * finds); `none` when a person said the project has none. A run pins it
   * (docs/flow-format.md, "Outputs and their checks"): a change here waits for
   * a person's `autopilot repin`.
   */
  verify?: string;
  /**
   * `follow_through: false`: `next` and `status` say nothing when the work went
   * elsewhere than the last action's next target (docs/state-and-journal.md,
   * "Last action and follow-through"). Absent (the default): said once, journaled.
   */
  followThrough?: false;
}

export type CommitMode = 'work' | 'evidence';

/** `auto`: the default, commits where git can take one; a mode: asked for (refused where git cannot); false: off. */
export type CommitSetting = 'auto' | CommitMode | false;

const MINUTE_MS = 60_000;
const REMOTE = new RegExp(`^[A-Za-z0-9][A-Za-z0-9._/-]{0,${REMOTE_NAME_MAX_LENGTH - 1}}$`);

/**
 * A lease threshold in minutes (`stale_after_minutes`, or the environment's
 * override, named by `where`) → milliseconds; nothing given → undefined.
 */
export function staleAfter(value: unknown, where: string): { ms: number | undefined } | { problem: Problem } {
  if (value === undefined || value === null || value === '') return { ms: undefined };
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) {
    return {
      problem: {
        file: where,
        message: 'the lease threshold is not a number of minutes',
        expected: 'a positive number, e.g. `stale_after_minutes: 10`',
        received: String(value),
      },
    };
  }
  return { ms: n * MINUTE_MS };
}

/**
 * `yaml`: the YAML parser, which throws on text that is not YAML.
 * `staleOverride`: a threshold from elsewhere (the environment) that
 * replaces the file's, which is then neither read nor judged.
 */
export function parseSettings(
  text: string,
  file: string,
  yaml: (text: string) => unknown,
  staleOverride?: number,
): { settings: Settings } | { problem: Problem } {
  const read = readYaml(text, file, yaml);
  if ('problem' in read) return read;
  const config = read.config;
  const commit = config.commit === undefined || config.commit === null ? 'auto' : config.commit === true ? 'work' : config.commit;
  if (!isCommitSetting(commit)) return { problem: commitProblem(config.commit, file) };
  const problem = valueProblem(config, file);
  if (problem) return { problem };
  const follow = config.follow_through;
  const timeout = config.lease?.remote_timeout_seconds;
  const remote = config.lease?.remote;
  const remoteStale = staleAfter(config.lease?.remote_stale_after_minutes, file);
  if ('problem' in remoteStale) return { problem: { ...remoteStale.problem, expected: 'a positive number, e.g. `remote_stale_after_minutes: 30`' } };
  const verify = config.verify ?? undefined;
  if (verify !== undefined && (typeof verify !== 'string' || verify.trim() === '' || /[\r\n]/.test(verify) || verify.length > FREE_TEXT_MAX_LENGTH)) {
    return {
      problem: {
        file,
        message: '`verify` is not a command line',
        expected: "the project's test command on one line, e.g. `verify: npm test` (or `verify: none`)",
        received: String(verify),
      },
    };
  }
  let staleMs = staleOverride;
  if (staleMs === undefined) {
    const threshold = staleAfter(config.lease?.stale_after_minutes, file);
    if ('problem' in threshold) return threshold;
    staleMs = threshold.ms;
  }
  return {
    settings: {
      staleMs: staleMs ?? DEFAULT_STALE_MS,
      commit,
      ...(typeof remote === 'string' ? { remote } : {}),
      remoteTimeoutMs: typeof timeout === 'number' ? timeout * 1000 : REMOTE_TIMEOUT_MS,
      ...(remoteStale.ms === undefined ? {} : { remoteStaleMs: remoteStale.ms }),
      ...(verify === undefined ? {} : { verify: verify.trim() }),
      ...(follow === false ? { followThrough: false as const } : {}),
    },
  };
}

/** What the settings file may hold, as YAML gives it (every value still to be checked). */
interface RawSettings {
  lease?: { stale_after_minutes?: unknown; remote?: unknown; remote_timeout_seconds?: unknown; remote_stale_after_minutes?: unknown };
  commit?: unknown;
  verify?: unknown;
  follow_through?: unknown;
}

/** The file's text as YAML (an empty file is no settings), or the problem the parser found. */
function readYaml(text: string, file: string, yaml: (text: string) => unknown): { config: RawSettings } | { problem: Problem } {
  let data: unknown;
  try {
    data = yaml(text);
  } catch (error) {
    return {
      problem: {
        file,
        message: `the settings are not valid YAML: ${(error as Error).message.split('\n')[0]}`,
        expected: 'lease:\n  stale_after_minutes: 10',
      },
    };
  }
  return { config: (data ?? {}) as RawSettings };
}

/** `commit`: false, true (work), `work` or `evidence`; unset is `auto`. */
const isCommitSetting = (commit: unknown): commit is CommitSetting => commit === false || commit === 'auto' || commit === 'work' || commit === 'evidence';

function commitProblem(given: unknown, file: string): Problem {
  return {
    file,
    message: '`commit` is not true, false, work or evidence',
    expected: 'commit: false (no progress commits), or true, or `evidence` (only the state and the files)',
    received: String(given),
  };
}

/** `follow_through`, the remote lease's timeout and remote name: the first value that is not one of its kind. */
function valueProblem(config: RawSettings, file: string): Problem | undefined {
  const follow = config.follow_through;
  if (follow !== undefined && follow !== null && typeof follow !== 'boolean') {
    return {
      file,
      message: '`follow_through` is not true or false',
      expected: 'follow_through: false (no follow-through notices)',
      received: String(follow),
    };
  }
  const timeout = config.lease?.remote_timeout_seconds;
  if (timeout !== undefined && (typeof timeout !== 'number' || !(timeout > 0) || timeout > 600)) {
    return { file, message: '`lease.remote_timeout_seconds` is not a number of seconds', expected: 'remote_timeout_seconds: 5', received: String(timeout) };
  }
  const remote = config.lease?.remote;
  if (remote !== undefined && (typeof remote !== 'string' || !REMOTE.test(remote))) {
    return { file, message: '`lease.remote` is not a git remote name', expected: 'remote: origin', received: String(remote) };
  }
  return undefined;
}

/** The settings as the file holds them; the remote quoted, so a name like `1` or `yes` stays a name. */
export function serializeSettings(settings: Settings): string {
  return [
    'lease:',
    `  stale_after_minutes: ${settings.staleMs / MINUTE_MS}`,
    ...(settings.remote === undefined ? [] : [`  remote: ${JSON.stringify(settings.remote)}`]),
    `  remote_timeout_seconds: ${settings.remoteTimeoutMs / 1000}`,
    ...(settings.remoteStaleMs === undefined ? [] : [`  remote_stale_after_minutes: ${settings.remoteStaleMs / MINUTE_MS}`]),
    ...(settings.commit === 'auto' ? [] : [`commit: ${settings.commit === 'work' ? 'true' : settings.commit}`]),
    ...(settings.verify === undefined ? [] : [verifyLine(settings.verify)]),
    ...(settings.followThrough === false ? ['follow_through: false'] : []),
    '',
  ].join('\n');
}

/** The settings line that names the test command: plain where YAML reads it back as it is, else quoted. */
export function verifyLine(command: string): string {
  const plain = /^[A-Za-z0-9_./(][^\t]*$/.test(command) && !/: |:$| #/.test(command) && !/^[-+.]?\d|^(true|false|null|~)$/i.test(command);
  return `verify: ${plain ? command : JSON.stringify(command)}`;
}
