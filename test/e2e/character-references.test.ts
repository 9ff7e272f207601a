/**
 * The shipped bundles carry a short table of HTML's named character references
 * (scripts/stubs/character-entities.js), not all 2,125: a name people type is
 * decoded as CommonMark decodes it, and a name outside the table stays in the
 * text as written, as CommonMark keeps any name it does not know.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { ROOT } from '../helpers/engine.js';
import { autopilot, tempRepo, write } from '../helpers/cli.js';

it('a flow step named with 3 named references: 2 from the table decoded, 1 outside it kept as written', () => {
  const dir = tempRepo();
  const flow = readFileSync(join(ROOT, 'flows', 'greenfield.md'), 'utf8')
    .replace('id: greenfield', 'id: refs')
    .replace(/^\| 1 \| Problem \|/m, '| 1 | Problem &rarr; scope &fjlig; &amp; more |');
  write(dir, '.autopilot/flows/refs.md', flow);
  expect(autopilot(dir, 'init', '--flow', 'refs').code).toBe(0);
  const next = autopilot(dir, 'next', '--json');
  expect(next.json().name).toBe('Problem \u2192 scope &fjlig; & more');
});
