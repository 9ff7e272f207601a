/**
 * Reads the repository's settings, `.autopilot/config.yml` (its format:
 * `formats/settings.ts`), only when the file exists: most repositories have
 * none, and start-up time matters; the plain lines `init` writes are read
 * without the YAML parser (`formats/plain-yaml.ts`). `AUTOPILOT_LEASE_STALE_MINUTES` overrides
 * the lease threshold for one shell.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { InputError } from '../../errors.js';
import { readPlainYaml } from '../../formats/plain-yaml.js';
import { parseSettings, staleAfter, type Settings } from '../../formats/settings.js';
import type { Repo } from '../../io/repo.js';
import { CONFIG_MAX_BYTES, DEFAULT_STALE_MS, REMOTE_TIMEOUT_MS } from '../../limits.js';

export async function readSettings(repo: Repo): Promise<Settings> {
  const fromEnv = staleAfter(process.env.AUTOPILOT_LEASE_STALE_MINUTES, '$AUTOPILOT_LEASE_STALE_MINUTES');
  if ('problem' in fromEnv) throw new InputError(fromEnv.problem);
  const file = join(repo.root, '.autopilot', 'config.yml');
  if (!existsSync(file)) return { staleMs: fromEnv.ms ?? DEFAULT_STALE_MS, commit: 'auto', remoteTimeoutMs: REMOTE_TIMEOUT_MS };
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
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    // Reported as it always was, with the parser's failures (a message that could name the read instead).
    throw new InputError({
      file: display,
      message: `the settings are not valid YAML: ${(error as Error).message.split('\n')[0]}`,
      expected: 'lease:\n  stale_after_minutes: 10',
    });
  }
  return settingsFromText(text, display, fromEnv.ms);
}

/** The settings a text holds: its plain `key: value` lines read without the YAML parser, anything else with it. */
export async function settingsFromText(text: string, display = '.autopilot/config.yml', staleOverride?: number): Promise<Settings> {
  const plain = readPlainYaml(text);
  const parse = plain === undefined ? (await import('./parse-yaml.js')).parseYaml : () => plain;
  const parsed = parseSettings(text, display, parse, staleOverride);
  if ('problem' in parsed) throw new InputError(parsed.problem);
  return parsed.settings;
}
