/**
 * A checkpoint before Deploy (seed 002, "Before deployment: create a
 * pre-deployment checkpoint"): the step a flow marks with `checkpoint_before`
 * starts with a checkpoint, once per entry into it. The built CLI on real
 * folders.
 */
import { withOptions } from '../helpers/line.js';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { autopilot as cli, journal, read, snapshot, tempRepo, write, writeArtifacts, type NextJson } from '../helpers/cli.js';
import { ROOT } from '../helpers/engine.js';

/** The agent of one conversation, named as the installed /autopilot text names it. */
const autopilot = (dir: string, ...args: string[]) => cli(dir, ...withOptions(args, ['--session', 'conversation-1']));

interface Listed {
  id: string;
  note: string;
  step: number | 'done' | null;
  status: string | null;
}

/** The checkpoints the engine took before a step (`…-before-<step>`; not the one `restore` takes of the state it replaces), newest first. */
function beforeCheckpoints(dir: string): Listed[] {
  return autopilot(dir, 'checkpoints', '--json')
    .json<{ checkpoints: Listed[] }>()
    .checkpoints.filter((c) => /-before-(?!restore$)/.test(c.id));
}

/**
 * Walks the run as an agent does (each step's files written as its skill says,
 * `done`, a person answering B at the decision and each boundary) until `step`
 * of `cycle` is next, not started: the `next` that starts it is the caller's.
 * (Files written ahead are no shortcut: the folder never walks past a person.)
 */
function walkUntil(dir: string, step: number, cycle = 1): void {
  for (let guard = 0; guard < 40; guard++) {
    const now = autopilot(dir, 'status', '--json').json<StepJson>();
    if (now.step === step && now.cycle === cycle && now.status === 'not_started') return;
    const n = next(dir);
    writeArtifacts(dir, n.done_when!);
    const done = autopilot(dir, 'done', '--json').json<StepJson>();
    if (done.decision || done.boundary) expect(autopilot(dir, 'decide', 'B').code).toBe(0);
  }
  throw new Error(`the run never reached step ${step} of cycle ${cycle}`);
}

/** A greenfield run walked through steps 1–9, whose `next` then started Deploy. */
function atDeploy(): { dir: string; deploy: StepJson } {
  const dir = tempRepo();
  walkUntil(dir, 10);
  const deploy = next(dir);
  expect(deploy).toMatchObject({ step: 10, action: 'start' });
  return { dir, deploy };
}

type StepJson = NextJson & { checkpoint?: string };

function next(dir: string): StepJson {
  const run = autopilot(dir, 'next', '--json');
  expect(run.code, run.stdout + run.stderr).toBe(0);
  return run.json<StepJson>();
}

/** Greenfield walked through the CLI as an agent walks it (a person answering B at the decision and the boundary), up to the `next` that starts Deploy. */
function walkGreenfieldToDeploy(dir: string): StepJson {
  for (let guard = 0; guard < 20; guard++) {
    const n = next(dir);
    if (n.step === 10) return n;
    expect(n.checkpoint, `step ${n.step}`).toBeUndefined();
    writeArtifacts(dir, n.done_when!);
    const done = autopilot(dir, 'done', '--json').json<StepJson>();
    if (done.decision || done.boundary) expect(autopilot(dir, 'decide', 'B').code).toBe(0);
  }
  throw new Error('greenfield never reached Deploy');
}

describe('a checkpoint before Deploy, the step the built-in flows mark', () => {
  it('walking greenfield through the CLI takes exactly 1 before-* checkpoint, as Deploy starts: named in next’s JSON, listed at step 10 in progress', () => {
    const dir = tempRepo();
    const deploy = walkGreenfieldToDeploy(dir);
    expect(deploy).toMatchObject({ step: 10, name: 'Deploy', action: 'start', status: 'in_progress' });
    const taken = beforeCheckpoints(dir);
    expect(taken).toHaveLength(1);
    expect(taken[0]).toMatchObject({ step: 10, status: 'in_progress', note: 'automatic: before step 10 Deploy' });
    expect(taken[0]!.id).toMatch(/-before-deploy$/);
    expect(deploy.checkpoint).toBe(taken[0]!.id);
    // The checkpoint names the journal event that started Deploy.
    const started = journal(dir).findLast((e) => e.event === 'step_started');
    expect(started).toMatchObject({ step: 10, attempt: 1 });
    const file = JSON.parse(read(dir, `_docs/_autopilot/checkpoints/${taken[0]!.id}.json`)) as { seq: number };
    expect(file.seq).toBe(started!.seq);
  });

  it('a resumed `next` on Deploy, a retry after `fail` and a `next` run twice take 0 more: still 1', () => {
    const { dir } = atDeploy();
    expect(beforeCheckpoints(dir)).toHaveLength(1);
    const resumed = next(dir);
    expect(resumed).toMatchObject({ step: 10, action: 'resume' });
    expect(resumed.checkpoint).toBeUndefined();
    expect(autopilot(dir, 'fail', '--reason', 'smoke test red').code).toBe(0);
    const retry = next(dir);
    expect(retry).toMatchObject({ step: 10, action: 'retry', retry_count: 1 });
    expect(retry.checkpoint).toBeUndefined();
    expect(next(dir).checkpoint).toBeUndefined();
    expect(beforeCheckpoints(dir)).toHaveLength(1);
  });

  it('`autopilot restore` goes back to it after the flow is done: Deploy in progress again, 1 checkpoint_restored journaled', () => {
    const { dir, deploy } = atDeploy();
    writeArtifacts(dir, deploy.done_when!);
    expect(autopilot(dir, 'done', '--json').json<StepJson>()).toMatchObject({ outcome: 'complete', step: 'done' });
    const id = beforeCheckpoints(dir)[0]!.id;
    expect(autopilot(dir, 'restore', id).code).toBe(0);
    expect(autopilot(dir, 'status', '--json').json<StepJson>()).toMatchObject({ step: 10, name: 'Deploy', status: 'in_progress', drift: [] });
    expect(journal(dir).filter((e) => e.event === 'checkpoint_restored')).toEqual([expect.objectContaining({ checkpoint: id })]);
    // Back on Deploy, in progress: the next `next` resumes it and takes no second checkpoint before it.
    expect(next(dir)).toMatchObject({ step: 10, action: 'resume' });
    expect(beforeCheckpoints(dir)).toHaveLength(1);
  });

  it('existing-code takes 1 in each cycle’s Deploy (step 14): 2 over two cycles, their notes naming cycle 1 and cycle 2', () => {
    const dir = tempRepo();
    // Code with no test command of its own (a go.mod would make `go test ./...` the run's tests): the walk's are `node --test`.
    write(dir, 'src/main.c', 'int main(void) { return 0; }\n');
    expect(autopilot(dir, 'init', '--flow', 'existing-code').code).toBe(0);
    walkUntil(dir, 14, 1);
    expect(next(dir)).toMatchObject({ step: 14, cycle: 1, action: 'start' });
    write(dir, '_docs/04_deploy/cycle-1/deploy_report.md');
    expect(autopilot(dir, 'done', '--json').json<StepJson>()).toMatchObject({ step: 8, cycle: 2 });
    walkUntil(dir, 14, 2);
    expect(next(dir)).toMatchObject({ step: 14, cycle: 2, action: 'start' });
    expect(
      beforeCheckpoints(dir)
        .map((c) => c.note)
        .reverse(),
    ).toEqual(['automatic: before step 14 Deploy, cycle 1', 'automatic: before step 14 Deploy, cycle 2']);
  }, 90_000);
});

describe('checkpoint_before in a repository’s own flow', () => {
  /** The built-in greenfield flow, edited: `mark` replaces its `checkpoint_before` line ('' drops it). */
  function ownGreenfield(dir: string, mark: string): string {
    const text = readFileSync(join(ROOT, 'flows', 'greenfield.md'), 'utf8');
    expect(text).toContain('checkpoint_before: [Deploy]\n');
    const own = text.replace('checkpoint_before: [Deploy]\n', mark ? `${mark}\n` : '');
    write(dir, '.autopilot/flows/greenfield.md', own);
    return own;
  }

  it('a flow without the key takes 0 automatic checkpoints at Deploy', () => {
    const dir = tempRepo();
    ownGreenfield(dir, '');
    walkUntil(dir, 10);
    const deploy = next(dir);
    expect(deploy).toMatchObject({ step: 10, name: 'Deploy', action: 'start' });
    expect(deploy.checkpoint).toBeUndefined();
    // The session boundary after Decompose took its own; none was taken before a step.
    expect(beforeCheckpoints(dir)).toEqual([]);
  });

  it('a flow that names another step takes 1 before that step, said in the text `next` prints', () => {
    const dir = tempRepo();
    ownGreenfield(dir, 'checkpoint_before: [Performance Test]');
    walkUntil(dir, 9);
    const run = autopilot(dir, 'next');
    expect(run.code, run.stderr).toBe(0);
    const [taken, ...others] = beforeCheckpoints(dir);
    expect(others).toEqual([]);
    expect(taken).toMatchObject({ step: 9, note: 'automatic: before step 9 Performance Test' });
    expect(taken!.id).toMatch(/-before-performance-test$/);
    expect(run.stdout).toContain(`✓ Checkpoint ${taken!.id} (a person can return to it: \`autopilot restore ${taken!.id}\`)`);
  });

  it('`checkpoint_before: [Nope]` is a problem naming the file and its line: `autopilot check` exits 2, and `next` refuses the flow (exit 2, nothing written)', () => {
    const dir = tempRepo();
    const text = ownGreenfield(dir, 'checkpoint_before:\n  - Deploy\n  - Nope');
    const line = text.split('\n').indexOf('  - Nope') + 1;
    expect(line).toBeGreaterThan(1);
    const check = autopilot(dir, 'check', '--json');
    expect(check.code).toBe(2);
    const problems = check.json<{ problems: { file?: string; line?: number; message: string }[] }>().problems;
    expect(problems).toContainEqual(
      expect.objectContaining({
        file: '.autopilot/flows/greenfield.md',
        line,
        message: '`checkpoint_before` names `Nope`, no step of greenfield',
      }),
    );
    expect(autopilot(dir, 'check').stdout).toContain(`.autopilot/flows/greenfield.md:${line}`);
    // Nothing is written but the parse cache, which keeps a broken flow's problems too (docs/flow-format.md, "Limits").
    const state = () => Object.fromEntries(Object.entries(snapshot(dir)).filter(([path]) => !path.startsWith('_docs/_autopilot/cache/')));
    const before = state();
    const refused = autopilot(dir, 'next', '--json');
    expect(refused.code).toBe(2);
    expect(state()).toEqual(before);
    expect(refused.json<{ error: { file?: string; line?: number } }>().error).toMatchObject({ file: '.autopilot/flows/greenfield.md', line });
  });
});

describe('a run pinned by an autopilot older than checkpoint_before', () => {
  /**
   * A greenfield run begun by an older autopilot: its `run_started` pins the
   * flow as that autopilot read it (no `checkpointBefore`) under that flow
   * file's hash.
   */
  function pinnedBeforeTheKey(): string {
    const dir = tempRepo();
    expect(autopilot(dir, 'init', '--flow', 'greenfield').code).toBe(0);
    const file = join(dir, '_docs/_autopilot/journal.jsonl');
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(1);
    const started = JSON.parse(lines[0]!) as {
      flow_hash: string;
      pinned: Record<string, unknown>;
      pointer: Record<string, unknown>;
      journal_index?: { pins?: Record<string, Record<string, unknown>> };
    };
    const OLD = 'a'.repeat(40);
    // The pinned copy, and the copy a journal line may carry in its index, as the older autopilot wrote them.
    for (const pinned of [started.pinned, started.journal_index?.pins?.greenfield]) {
      if (!pinned) continue;
      delete pinned.checkpointBefore;
      pinned.hash = OLD;
    }
    started.flow_hash = OLD;
    started.pointer.flow_hash = OLD;
    writeFileSync(file, `${JSON.stringify(started)}\n`);
    rmSync(join(dir, '_docs/_autopilot/cache'), { recursive: true, force: true });
    return dir;
  }

  it('still loads: its pinned steps run, the new key is reported as the 1 change for `repin`, and its Deploy takes 0 checkpoints', () => {
    const dir = pinnedBeforeTheKey();
    const status = autopilot(dir, 'status', '--json');
    expect(status.code, status.stdout + status.stderr).toBe(0);
    expect(status.json<{ notices?: string[] }>().notices).toEqual([
      expect.stringContaining('changed since this run started (checkpoint_before changed (none → Deploy))'),
    ]);
    walkUntil(dir, 10);
    const deploy = next(dir);
    expect(deploy).toMatchObject({ step: 10, name: 'Deploy', action: 'start' });
    expect(deploy.checkpoint).toBeUndefined();
    expect(beforeCheckpoints(dir)).toEqual([]);
    // A person adopts the flow as it is now: the run's next entry into Deploy will take one.
    const repin = autopilot(dir, 'repin', '--json');
    expect(repin.code).toBe(0);
    expect(repin.json<{ changes: string[] }>().changes).toEqual(['checkpoint_before changed (none → Deploy)']);
    expect(autopilot(dir, 'check').code).toBe(0);
  });
});
