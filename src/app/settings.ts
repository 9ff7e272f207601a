/**
 * The repository's settings, `.autopilot/config.yml`, read only when it
 * exists (most repositories have none, and start-up time matters):
 *
 * ```yaml
 * lease:
 *   stale_after_minutes: 10   # another session's lease on this machine is stale after this
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
  if (fromEnv !== undefined) return { staleMs: fromEnv };
  const file = join(repo.root, '.autopilot', 'config.yml');
  if (!existsSync(file)) return { staleMs: DEFAULT_STALE_MS };
  const display = '.autopilot/config.yml';
  if (statSync(file).size > CONFIG_MAX_BYTES) {
    throw new InputError({
      file: display,
      message: 'the settings file is too large',
      expected: `at most ${CONFIG_MAX_BYTES} bytes`,
      received: `${statSync(file).size} bytes`,
    });
  }
  const { parse } = await import('yaml');
  let data: unknown;
  try {
    data = parse(readFileSync(file, 'utf8'), { maxAliasCount: 10 });
  } catch (error) {
    throw new InputError({
      file: display,
      message: `the settings are not valid YAML: ${(error as Error).message.split('\n')[0]}`,
      expected: 'lease:\n  stale_after_minutes: 10',
    });
  }
  const lease = (data as { lease?: { stale_after_minutes?: unknown } } | null)?.lease;
  return { staleMs: minutes(lease?.stale_after_minutes, display) ?? DEFAULT_STALE_MS };
}
