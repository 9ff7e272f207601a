/**
 * The repository's settings, `.autopilot/config.yml`, read only when it
 * exists (most repositories have none, and start-up time matters):
 *
 * ```yaml
 * lease:
 *   stale_after_minutes: 10   # another session's lease on this machine is stale after this
 *   remote: origin            # also hold the lease on this git remote (agents on several machines)
 * commit: true                # a progress commit after each step that finishes something
 * ```
 *
 * `AUTOPILOT_LEASE_STALE_MINUTES` overrides it for one shell.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_STALE_MS } from '../engine/lease.js';
import { InputError } from '../errors.js';
import type { Repo } from '../io/repo.js';

export interface Settings {
  staleMs: number;
  /** `commit: true`: a progress commit after every step command that finishes something. */
  commit: boolean;
  /** `lease: { remote: origin }`: the lease is also kept on that git remote (agents on several machines). */
  remote?: string;
}

const CONFIG_MAX_BYTES = 64 * 1024;

function minutes(value: unknown, where: string): number | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) {
    throw new InputError({
      file: where,
      message: 'the lease threshold is not a number of minutes',
      expected: 'a positive number, e.g. `stale_after_minutes: 10`',
      received: String(value),
    });
  }
  return n * 60_000;
}

export async function readSettings(repo: Repo): Promise<Settings> {
  const fromEnv = minutes(process.env.AUTOPILOT_LEASE_STALE_MINUTES, '$AUTOPILOT_LEASE_STALE_MINUTES');
  const file = join(repo.root, '.autopilot', 'config.yml');
  if (!existsSync(file)) return { staleMs: fromEnv ?? DEFAULT_STALE_MS, commit: false };
  const display = '.autopilot/config.yml';
  if (!statSync(file).isFile()) throw new InputError({ file: display, message: 'the settings are not a regular file', expected: 'a YAML file' });
  if (statSync(file).size > CONFIG_MAX_BYTES) {
    throw new InputError({
      file: display,
      message: 'the settings file is too large',
      expected: `at most ${CONFIG_MAX_BYTES} bytes`,
      received: `${statSync(file).size} bytes`,
    });
  }
  const { parseYaml } = await import('./parse-yaml.js');
  let data: unknown;
  try {
    data = parseYaml(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new InputError({
      file: display,
      message: `the settings are not valid YAML: ${(error as Error).message.split('\n')[0]}`,
      expected: 'lease:\n  stale_after_minutes: 10',
    });
  }
  const config = (data ?? {}) as { lease?: { stale_after_minutes?: unknown; remote?: unknown }; commit?: unknown };
  if (config.commit !== undefined && typeof config.commit !== 'boolean') {
    throw new InputError({ file: display, message: '`commit` is not true or false', expected: 'commit: true', received: String(config.commit) });
  }
  const remote = config.lease?.remote;
  if (remote !== undefined && (typeof remote !== 'string' || !/^[A-Za-z0-9][A-Za-z0-9._/-]{0,99}$/.test(remote))) {
    throw new InputError({ file: display, message: '`lease.remote` is not a git remote name', expected: 'remote: origin', received: String(remote) });
  }
  return {
    staleMs: fromEnv ?? minutes(config.lease?.stale_after_minutes, display) ?? DEFAULT_STALE_MS,
    commit: config.commit === true,
    ...(typeof remote === 'string' ? { remote } : {}),
  };
}
