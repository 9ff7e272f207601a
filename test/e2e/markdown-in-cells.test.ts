/**
 * How the shipped bundles read a flow's cells, where they carry less than the
 * parser's packages: a short table of HTML's named character references
 * (scripts/stubs/character-entities.js), not all 2,125, and none of GFM's
 * footnotes, strikethrough and bare-link literals (src/formats/flow/unread-constructs.ts).
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

it('a step named with ~~strikethrough~~, a footnote call [^1] and a bare www. link reads as written: 3 of 3 kept', () => {
  const dir = tempRepo();
  const flow = readFileSync(join(ROOT, 'flows', 'greenfield.md'), 'utf8')
    .replace('id: greenfield', 'id: cells')
    .replace(/^\| 1 \| Problem \|/m, '| 1 | Problem ~~old~~ [^1] www.example.com |');
  write(dir, '.autopilot/flows/cells.md', `${flow}\n[^1]: A footnote autopilot does not read.\n`);
  expect(autopilot(dir, 'init', '--flow', 'cells').code).toBe(0);
  expect(autopilot(dir, 'next', '--json').json().name).toBe('Problem ~~old~~ [^1] www.example.com');
});
