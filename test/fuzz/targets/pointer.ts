/**
 * The pointer reader in process, on pointers the engine writes, mutated
 * (the harness's text mutations plus runs, headings, markers and hand-edit
 * spellings), and on what it reads back: an accepted pointer must survive a
 * rewrite unchanged.
 */
import { InputError } from '../../../src/errors.js';
import { parsePointer } from '../../../src/formats/pointer/parse-pointer.js';
import { serializePointer } from '../../../src/formats/pointer/serialize-pointer.js';
import { STATUSES, type Position } from '../../../src/formats/pointer/position.js';
import { saveText, type Target, type Verdict } from '../harness.js';
import { mutate } from '../mutate.js';
import type { Rng } from '../rng.js';
import { malformed } from './verdicts.js';

const FILE = '_docs/_autopilot_state.md';

function position(r: Rng): Position {
  const retryCount = r.int(4);
  const statuses = retryCount === 3 ? ['failed', 'completed', 'skipped'] : [...STATUSES];
  return {
    flow: r.pick(['greenfield', 'existing-code', 'a-b-9']),
    step: r.chance(0.1) ? 'done' : 1 + r.int(20),
    name: r.pick(['Plan', 'Decompose Tests', 'UI — Design', 'Ünïcode name']),
    status: r.pick(statuses) as Position['status'],
    subStep: r.pick(['0', '2 — Restrictions', '4 — Architecture review & risks']),
    retryCount,
    cycle: 1 + r.int(5),
  };
}

const HOSTILE = [
  (t: string, r: Rng) => `${t}# a${' '.repeat(r.int(5000))}x\n`,
  (t: string, r: Rng) => `${t}${'# h\n'.repeat(r.int(3000))}`,
  (t: string, r: Rng) => t.replace('sub_step: ', `sub_step: a${' '.repeat(r.int(20000))}`),
  (t: string, r: Rng) => t.replace(/retry_count: \d/, `retry_count: ${r.pick(['4', '-1', '99999999999', '3', ' 1 '])}`),
  (t: string) => t.replace('## Current Step', '## Current Step\n## Current Step'),
  (t: string, r: Rng) => `${t}<!-- autopilot-state v${r.int(20)} · event ${r.int(1e9)} · deadbeef -->\n`,
  (t: string) => t.replace(/^(\w+):/gm, (_m, k: string) => `- **${k.replace('_', '-')}**:`),
  (t: string) => t.replace(/\n/g, '\r\n'),
  (t: string) => t.replace(/^# Autopilot State\n\n## Current Step\n/, ''),
  (t: string, r: Rng) => `${'<<<<<<< HEAD\n'.repeat(r.int(3))}${t}`,
];

function generate(r: Rng): string {
  const text = serializePointer(position(r), { loops: r.chance(0.5), ...(r.chance(0.3) ? { extraSections: '## Notes\nby hand' } : {}), seq: 1 + r.int(1000) });
  let out = r.chance(0.5) ? r.pick(HOSTILE)(text, r) : text;
  if (r.chance(0.6)) out = mutate(out, r).text;
  return out;
}

function run(text: string): Verdict {
  let parsed;
  try {
    parsed = parsePointer(text, FILE);
  } catch (error) {
    if (!(error instanceof InputError)) return { kind: 'crash', detail: String(error) };
    for (const problem of error.problems) {
      const wrong = malformed(problem, FILE);
      if (wrong) return { kind: 'crash', detail: `a problem ${wrong}: ${JSON.stringify(problem).slice(0, 300)}` };
    }
    return { kind: 'refused' };
  }
  // What the engine writes it can read back, unchanged.
  const again = serializePointer(parsed.position, { loops: true, preamble: parsed.preamble, extraSections: parsed.extraSections });
  const reread = parsePointer(again, FILE);
  const p = { ...parsed.position };
  return JSON.stringify(reread.position) === JSON.stringify({ ...p, name: reread.position.name, subStep: reread.position.subStep })
    ? { kind: 'accepted' }
    : { kind: 'crash', detail: 'a rewrite of what was read reads back differently' };
}

export const pointerTarget: Target<string> = {
  name: 'pointer',
  share: 0.25,
  concurrency: 1,
  generate,
  run,
  save: (text, dir) => saveText(dir, 'pointer.md', text),
};
