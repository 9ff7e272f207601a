/**
 * Several runs in one repository are each as they would be alone (CONTRACT
 * rule 12): random step commands of three runs (the default run and two named
 * ones), interleaved in one folder, leave each run's journal and pointer
 * byte for byte what the same commands leave when that run is alone in a
 * folder of its own. The clock is fixed, so the journals' times, and with
 * them their chains, can be compared whole.
 */
import fc from 'fast-check';
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { builtFlow, freshDir, loadApp, type App } from '../helpers/faults.js';
import { stepEvidence } from '../helpers/templates.js';

const app: App = await loadApp();
const flow = builtFlow('greenfield');
const RUNS = ['default', 'alpha', 'beta.2'] as const;
type RunName = (typeof RUNS)[number];

type Op =
  { type: 'next' } | { type: 'done' } | { type: 'work' } | { type: 'fail' } | { type: 'substep' } | { type: 'decide'; option: 'A' | 'B' } | { type: 'ack' };
interface Action {
  run: RunName;
  op: Op;
}

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: fc.constant<Op>({ type: 'next' }) },
  { weight: 8, arbitrary: fc.constant<Op>({ type: 'work' }) },
  { weight: 8, arbitrary: fc.constant<Op>({ type: 'done' }) },
  { weight: 1, arbitrary: fc.constant<Op>({ type: 'fail' }) },
  { weight: 1, arbitrary: fc.constant<Op>({ type: 'substep' }) },
  { weight: 4, arbitrary: fc.constantFrom('A', 'B').map((option): Op => ({ type: 'decide', option })) },
  { weight: 1, arbitrary: fc.constant<Op>({ type: 'ack' }) },
);
const actions = fc.array(fc.record({ run: fc.constantFrom(...RUNS), op }), { minLength: 20, maxLength: 60 });

const AT = new Date('2026-11-28T12:00:00.000Z');
const ctx = (dir: string, run: RunName) => ({
  repo: { dir, ...(run === 'default' ? {} : { run }) },
  session: `conversation-${run}`,
  sessionFrom: 'given' as const,
  now: () => AT,
});
const docsOf = (run: RunName) => (run === 'default' ? '_docs' : `_docs/_runs/${run}`);

/** What an agent does with its step: writes the files its Done-when names, filled as the step's skill says. */
async function work(dir: string, run: RunName): Promise<void> {
  const { view } = await app.runStatus(ctx(dir, run));
  const step = (view as { position: { step: number | 'done' } }).position.step;
  if (typeof step !== 'number') return;
  const docs = docsOf(run);
  // The templates helper reads a path as `<docs folder>/<file>`: give it the run's files under `_docs/`, then put them in the run's folder.
  const files = stepEvidence(flow.steps[step - 1]!.doneWhen.map((p) => `_docs/${p}`));
  for (const [path, text] of Object.entries(files)) {
    const target = join(dir, docs, path.slice('_docs/'.length));
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, text);
  }
}

async function act(dir: string, { run, op }: Action): Promise<number> {
  if (op.type === 'work') return (await work(dir, run), 0);
  const event =
    op.type === 'fail'
      ? { type: 'fail' as const, reason: 'the tests are red' }
      : op.type === 'substep'
        ? { type: 'substep' as const, text: '2 — Middle' }
        : op.type === 'decide'
          ? { type: 'decide' as const, option: op.option }
          : { type: op.type };
  try {
    return (await app.runStep(ctx(dir, run), { event })).exit;
  } catch (error) {
    return app.exitCodeOfError(error);
  }
}

async function repository(runs: readonly RunName[]): Promise<string> {
  const dir = freshDir();
  for (const run of runs) await app.runInit(ctx(dir, run), 'greenfield');
  return dir;
}

const record = (dir: string, run: RunName) =>
  ['_autopilot_state.md', '_autopilot/journal.jsonl'].map((file) => {
    const path = join(dir, docsOf(run), file);
    return existsSync(path) ? readFileSync(path, 'utf8') : '(none)';
  });

describe('runs side by side (rule 12)', () => {
  it('random step commands of 3 runs interleaved in one repository: each run’s journal and pointer byte for byte as alone', async () => {
    let commands = 0;
    let events = 0;
    let waits = 0;
    let furthest = 0;
    await fc.assert(
      fc.asyncProperty(actions, async (list) => {
        const together = await repository(RUNS);
        for (const action of list) {
          const exit = await act(together, action);
          if (exit === 4) waits++;
          commands++;
        }
        for (const run of RUNS) {
          const alone = await repository([run]);
          for (const action of list.filter((a) => a.run === run)) await act(alone, action);
          const [pointer, journal] = record(together, run);
          expect(record(alone, run), run).toEqual([pointer, journal]);
          events += journal!.split('\n').length - 1;
          furthest = Math.max(furthest, Number(/^step: (\d+)/m.exec(pointer!)?.[1] ?? 0));
        }
      }),
      { numRuns: 12, seed: Number(process.env.FAULT_SEED ?? 20261128) },
    );
    console.log(`${commands} commands of 3 runs interleaved, ${events} journal events compared (furthest step ${furthest}): each run as alone, ${waits} waits`);
    expect(waits).toBe(0);
  }, 180_000);
});
