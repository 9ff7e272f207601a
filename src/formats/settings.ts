/**
 * The repository's settings, `.autopilot/config.yml`:
 *
 * ```yaml
 * lease:
 *   stale_after_minutes: 10   # another session's lease on this machine is stale after this
 *   remote: origin            # also hold the lease on this git remote (agents on several machines)
 * commit: true                # a progress commit after each step that finishes something
 * ```
 *
 * Pure: text → settings or the problem with them; settings → text. The YAML
 * parser is passed in (`app/parse-yaml.ts`, a bundle of its own), so reading
 * the settings costs start-up nothing when a repository has none. Reading
 * the file, its size limit and the environment's override are
 * `app/settings.ts`.
 */
import type { Problem } from '../errors.js';
import { DEFAULT_STALE_MS, REMOTE_NAME_MAX_LENGTH } from '../limits.js';

export interface Settings {
  /** How long another session's lease on this machine may be quiet before it is stale. */
  staleMs: number;
  /** `commit: true`: a progress commit after every step command that finishes something. */
  commit: boolean;
  /** `lease: { remote: origin }`: the lease is also kept on that git remote (agents on several machines). */
  remote?: string;
}

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
  const config = (data ?? {}) as { lease?: { stale_after_minutes?: unknown; remote?: unknown }; commit?: unknown };
  if (config.commit !== undefined && typeof config.commit !== 'boolean') {
    return { problem: { file, message: '`commit` is not true or false', expected: 'commit: true', received: String(config.commit) } };
  }
  const remote = config.lease?.remote;
  if (remote !== undefined && (typeof remote !== 'string' || !REMOTE.test(remote))) {
    return { problem: { file, message: '`lease.remote` is not a git remote name', expected: 'remote: origin', received: String(remote) } };
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
      commit: config.commit === true,
      ...(typeof remote === 'string' ? { remote } : {}),
    },
  };
}

/** The settings as the file holds them; the remote quoted, so a name like `1` or `yes` stays a name. */
export function serializeSettings(settings: Settings): string {
  return [
    'lease:',
    `  stale_after_minutes: ${settings.staleMs / MINUTE_MS}`,
    ...(settings.remote === undefined ? [] : [`  remote: ${JSON.stringify(settings.remote)}`]),
    `commit: ${settings.commit}`,
    '',
  ].join('\n');
}
