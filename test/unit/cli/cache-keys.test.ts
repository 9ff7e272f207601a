/**
 * The launcher (bin/autopilot.js) keeps a code cache per command, told from
 * the command line's words before the CLI reads them: its list of names must
 * be the CLI's, or a command would share another's cache (and pay to
 * deserialise what it never runs).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../../src/commands/index.js';
import { ROOT } from '../../helpers/engine.js';

describe("the launcher's cache keys", () => {
  it('name every command of the CLI and nothing else (25 commands)', () => {
    const launcher = readFileSync(join(ROOT, 'bin', 'autopilot.js'), 'utf8');
    const listed = /const COMMAND_NAMES = new Set\(\s*'([a-z ]+)'\.split/.exec(launcher)?.[1]?.split(' ');
    expect(listed?.sort()).toEqual(COMMANDS.map((command) => command.name).sort());
    expect(listed).toHaveLength(25);
  });
});
