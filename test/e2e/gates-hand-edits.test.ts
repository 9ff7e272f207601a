/**
 * Issue 29 points 1, 7 and 8, issue 30 points 5 and 6: a person's gates hold
 * against hand edits, through the built command line. Each attack an agent
 * (or a hurried person) can make by editing `_docs/_autopilot_state.md` or
 * the pinned acceptance criteria is tried here: the edit is held, the run
 * stays where the journal says, every command names the edit with the
 * command that adopts it (`autopilot adopt`, a person's), `check` fails, and
 * the journal records nothing the edit asked for. Edits that pass no gate
 * are still respected.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { autopilot, editPointer, journal, namingCriteria, read, write, writeArtifacts, type NextJson } from '../helpers/cli.js';
import { committedRepo, git } from '../helpers/git.js';
import { batchReport, filledTemplate, hasResult, stepEvidence, testProject } from '../helpers/templates.js';

const POINTER = '_docs/_autopilot_state.md';
const CRITERIA = '_docs/00_problem/acceptance_criteria.md';

const repo = committedRepo;

const events = (dir: string) => journal(dir).map((e) => String(e.event));
const status = (dir: string) => autopilot(dir, 'status', '--json').json<NextJson>();
const heldDrift = (json: NextJson) => json.drift.filter((d) => d.kind === 'held-edit' || d.kind === 'held-criteria');

/** `next`, then every file the step asks for written as its skill says (criteria named), the suite run where a report holds a Result. */
function startAndWrite(dir: string, expected?: number): NextJson {
  const next = autopilot(dir, 'next', '--json');
  expect(next.code, next.stdout + next.stderr).toBe(0);
  const json = next.json<NextJson>();
  if (expected !== undefined) expect(json.step).toBe(expected);
  const files = stepEvidence(json.done_when!);
  for (const [file, text] of Object.entries(files)) write(dir, file, namingCriteria(dir, file, text));
  if (Object.values(files).some(hasResult)) {
    testProject(dir);
    expect(autopilot(dir, 'exec').code).toBe(0);
  }
  return json;
}

/** Step 1 (Problem) done with two criteria, AC-01 and AC-02: the pointer waits at step 2 (Research), not started. */
function problemDone(dir: string): void {
  startAndWrite(dir, 1);
  const text = read(dir, CRITERIA).replace(/^(- \*\*AC-01\*\*.*)$/m, '$1\n- **AC-02**: the status shows every step. Checked by: a test of the status screen.');
  writeFileSync(join(dir, CRITERIA), text);
  const done = autopilot(dir, 'done');
  expect(done.code, done.stdout + done.stderr).toBe(0);
}

/** Walks a greenfield run from where it stands to `step` (started), answering B at the decision and the boundary. */
function walkTo(dir: string, step: number): void {
  for (let i = 0; i < 20; i++) {
    const json = startAndWrite(dir);
    if (json.step === step) return;
    const done = autopilot(dir, 'done');
    expect([0, 3], `${json.step}: ${done.stdout}${done.stderr}`).toContain(done.code);
    if (done.code === 3) expect(autopilot(dir, 'decide', 'B').code).toBe(0);
  }
  throw new Error(`never reached step ${step}`);
}

describe('a pointer edit past a gate a person owns is held', () => {
  it('after 3 failures, `status: failed → in_progress` and `retry_count: 3 → 0` finish nothing: 1 edit held, 0 steps completed, until a person adopts it', () => {
    const dir = repo();
    startAndWrite(dir, 1);
    for (const n of [1, 2, 3]) {
      if (n > 1) expect(autopilot(dir, 'next').code).toBe(0);
      expect(autopilot(dir, 'fail', '--reason', `attempt ${n} failed`).code).toBe(n === 3 ? 3 : 0);
    }
    editPointer(dir, { status: 'in_progress', retry_count: '0' });

    const seen = status(dir);
    expect(seen).toMatchObject({ step: 1, status: 'failed', retry_count: 3 });
    expect(heldDrift(seen)).toEqual([expect.objectContaining({ kind: 'held-edit', message: expect.stringContaining('autopilot adopt') })]);
    expect(autopilot(dir, 'status').stdout).not.toContain('Problems  none');
    expect(autopilot(dir, 'check').code).toBe(2);

    const before = events(dir);
    const done = autopilot(dir, 'done', '--json');
    expect(done.code, done.stdout).toBe(3);
    expect(heldDrift(done.json<NextJson>())).toHaveLength(1);
    // The first command that writes records the held edit, and nothing else: no step completed, no retry reset.
    expect(events(dir)).toEqual([...before, 'edit_held']);
    expect(read(dir, POINTER)).toMatch(/status: failed\nsub_step: 0\nretry_count: 3/);
    expect(read(dir, POINTER)).toContain('## Held Edit');
    expect(autopilot(dir, 'next').code).toBe(3);
    expect(autopilot(dir, 'check').code).toBe(2);

    // A person adopts it: journaled as theirs, and the step goes on from the edited pointer.
    const adopt = autopilot(dir, 'adopt', '--json');
    expect(adopt.code, adopt.stdout + adopt.stderr).toBe(0);
    expect(journal(dir).at(-1)).toMatchObject({ event: 'edit_adopted', actor: 'person' });
    expect(status(dir)).toMatchObject({ step: 1, status: 'in_progress', retry_count: 0, drift: [] });
    expect(read(dir, POINTER)).not.toContain('## Held Edit');
    expect(autopilot(dir, 'check').code).toBe(0);
    // Nothing held now: adopt says so.
    expect(autopilot(dir, 'adopt').code).toBe(2);
  });

  it('with the research decision pending, `step: 2 → 3` starts no Plan: 0 step_started at step 3, 0 decisions answered, "Problems" names the edit', () => {
    const dir = repo();
    problemDone(dir);
    startAndWrite(dir, 2);
    expect(autopilot(dir, 'done').code).toBe(3);
    editPointer(dir, { step: '3', name: 'Plan', status: 'not_started' });

    const text = autopilot(dir, 'status').stdout;
    expect(text).not.toContain('Problems  none');
    expect(text).toContain('autopilot adopt');
    const next = autopilot(dir, 'next', '--json');
    expect(next.code).toBe(3);
    expect(next.json<NextJson>()).toMatchObject({ step: 2, status: 'completed', decision: expect.anything() });
    const all = journal(dir);
    expect(all.filter((e) => e.event === 'step_started' && e.step === 3)).toHaveLength(0);
    expect(all.filter((e) => e.event === 'decision_answered')).toHaveLength(0);
    expect(autopilot(dir, 'check').code).toBe(2);
  });

  it('changing `flow:` on a run that has journaled a step is held: the run stays greenfield, 0 run_started for existing-code', () => {
    const dir = repo();
    problemDone(dir);
    editPointer(dir, { flow: 'existing-code', name: 'Test Spec' });
    const next = autopilot(dir, 'next', '--json');
    expect(next.code, next.stdout).toBe(0);
    expect(next.json<NextJson>()).toMatchObject({ flow: 'greenfield', step: 2, name: 'Research' });
    expect(heldDrift(next.json<NextJson>())).toEqual([expect.objectContaining({ message: expect.stringContaining('flow') })]);
    expect(journal(dir).filter((e) => e.flow === 'existing-code')).toHaveLength(0);
    expect(read(dir, POINTER)).toContain('flow: greenfield');
  });

  it('moving `step:` forward past a session boundary not yet reached is held: Decompose resumes, then its done reaches the boundary (exit 3)', () => {
    const dir = repo();
    walkTo(dir, 5);
    editPointer(dir, { step: '6', name: 'Implement', status: 'not_started' });
    const next = autopilot(dir, '--session', 'conversation-1', 'next', '--json');
    expect(next.code, next.stdout).toBe(0);
    expect(next.json<NextJson>()).toMatchObject({ step: 5, name: 'Decompose' });
    expect(heldDrift(next.json<NextJson>())).toHaveLength(1);
    expect(journal(dir).filter((e) => e.event === 'step_started' && e.step === 6)).toHaveLength(0);
    expect(autopilot(dir, '--session', 'conversation-1', 'done').code).toBe(3);
    expect(events(dir)).toContain('boundary_reached');
  });

  it('a boundary reached and not answered is not walked past by `status: not_started → in_progress`: the same conversation is stopped again (exit 3)', () => {
    const dir = repo();
    walkTo(dir, 5);
    expect(autopilot(dir, '--session', 'conversation-1', 'done').code).toBe(3);
    editPointer(dir, { status: 'in_progress' });
    const next = autopilot(dir, '--session', 'conversation-1', 'next', '--json');
    expect(next.code, next.stdout).toBe(3);
    expect(heldDrift(next.json<NextJson>())).toHaveLength(1);
    expect(journal(dir).filter((e) => e.event === 'step_started' && e.step === 6)).toHaveLength(0);
  });

  it('moving forward further than judged evidence carries the run is held: Problem files that fail their checks keep the run at step 1', () => {
    const dir = repo();
    startAndWrite(dir, 1);
    writeFileSync(join(dir, '_docs/00_problem/problem.md'), '# Problem\n\nTODO\n');
    editPointer(dir, { step: '2', name: 'Research', status: 'not_started' });
    const next = autopilot(dir, 'next', '--json');
    expect(next.code, next.stdout).toBe(0);
    expect(next.json<NextJson>()).toMatchObject({ step: 1, name: 'Problem' });
    expect(heldDrift(next.json<NextJson>())).toHaveLength(1);
    expect(journal(dir).filter((e) => e.step === 2)).toHaveLength(0);
  });

  it('a person dismisses a held edit by deleting the `## Held Edit` section: journaled once, 0 problems after', () => {
    const dir = repo();
    problemDone(dir);
    startAndWrite(dir, 2);
    expect(autopilot(dir, 'done').code).toBe(3);
    editPointer(dir, { step: '3', name: 'Plan', status: 'not_started' });
    expect(autopilot(dir, 'next').code).toBe(3);
    expect(read(dir, POINTER)).toContain('## Held Edit');
    // Later commands keep it: the engine rewrites the pointer, the held edit stays named.
    expect(autopilot(dir, 'next').code).toBe(3);
    expect(read(dir, POINTER)).toContain('## Held Edit');
    expect(heldDrift(status(dir))).toHaveLength(1);
    const text = read(dir, POINTER);
    writeFileSync(join(dir, POINTER), text.replace(/## Held Edit[\s\S]*?(?=\n<!--)/, ''));
    expect(status(dir).drift).toEqual([expect.objectContaining({ kind: 'held-edit', message: expect.stringContaining('dropped') })]);
    expect(autopilot(dir, 'next').code).toBe(3);
    expect(events(dir).filter((e) => e === 'edit_dismissed')).toHaveLength(1);
    expect(status(dir).drift).toEqual([]);
    expect(autopilot(dir, 'check').code).toBe(0);
    expect(autopilot(dir, 'adopt').code).toBe(2);
  });
});

describe('edits that pass no gate are respected as before', () => {
  it('moving back to redo a step, and a hand-written pointer on a run with no journaled step: 2 edits respected, 0 held', () => {
    const dir = repo();
    problemDone(dir);
    editPointer(dir, { step: '1', name: 'Problem', status: 'not_started' });
    const back = autopilot(dir, 'next', '--json');
    expect(back.code).toBe(0);
    expect(back.json<NextJson>()).toMatchObject({ step: 1, status: 'in_progress' });
    expect(heldDrift(back.json<NextJson>())).toEqual([]);

    const fresh = repo();
    expect(autopilot(fresh, 'init', '--flow', 'greenfield').code).toBe(0);
    for (const rel of ['00_problem/problem.md', '00_problem/acceptance_criteria.md', '01_solution/solution_draft_01.md', '01_solution/solution.md'])
      write(fresh, `_docs/${rel}`);
    write(fresh, '_docs/02_document/architecture.md');
    write(fresh, POINTER, 'flow: greenfield\nstep: 4\nname: UI Design\nstatus: not_started\nsub_step: 0\nretry_count: 0\n');
    const seed = autopilot(fresh, 'next', '--json');
    expect(heldDrift(seed.json<NextJson>())).toEqual([]);
    expect(seed.json<NextJson>().step).toBeGreaterThanOrEqual(4);
  });

  it('issue 30 point 5: a flow changed by hand in the pointer of a run with no journaled step is pinned on its first write (1 run_started for it)', () => {
    const dir = repo();
    write(dir, 'go.mod', 'module x\n');
    expect(autopilot(dir, 'init', '--flow', 'greenfield').code).toBe(0);
    editPointer(dir, { flow: 'existing-code', name: 'Document' });
    const next = autopilot(dir, 'next', '--json');
    expect(next.code, next.stdout).toBe(0);
    expect(next.json<NextJson>()).toMatchObject({ flow: 'existing-code', step: 1, name: 'Document' });
    expect(journal(dir).filter((e) => e.event === 'run_started' && e.flow === 'existing-code')).toEqual([
      expect.objectContaining({ pinned: expect.objectContaining({ id: 'existing-code' }) }),
    ]);
  });
});

describe('every way into a step records its start (issue 29 point 7)', () => {
  it('`substep` on a step not started is refused naming `autopilot next`: exit 2, 0 events written', () => {
    const dir = repo();
    problemDone(dir);
    const before = events(dir);
    const substep = autopilot(dir, 'substep', '1 — Questions', '--json');
    expect(substep.code).toBe(2);
    expect(substep.stdout).toContain('autopilot next');
    expect(events(dir)).toEqual(before);
    expect(status(dir)).toMatchObject({ step: 2, status: 'not_started' });
  });

  it('`next` on a step marked in progress by hand records its start, so the code written during it is in its commit', () => {
    const dir = repo();
    problemDone(dir);
    editPointer(dir, { status: 'in_progress' });
    const next = autopilot(dir, 'next', '--json');
    expect(next.code, next.stdout).toBe(0);
    expect(journal(dir).filter((e) => e.event === 'step_started' && e.step === 2)).toEqual([expect.objectContaining({ tree: expect.any(String) })]);
    write(dir, 'src/research_spike.js', '// tried the parser\n');
    writeArtifacts(dir, next.json<NextJson>().done_when!);
    expect(autopilot(dir, 'done').code).toBe(3);
    expect(git(dir, 'show', '--name-only', '--format=', 'HEAD').trim().split('\n')).toContain('src/research_spike.js');
  });
});

/** A greenfield index of three batches (tasks 01, 02, 03), a task file each, every criterion covered. */
function writeThreeBatches(dir: string): void {
  const rows = ['01', '02', '03'].map((id, i) => `| ${id} | Task ${id} | 3 | ${i + 1} | ${i === 0 ? '—' : String(i).padStart(2, '0')} | unit tests |`);
  write(
    dir,
    '_docs/02_tasks/_index.md',
    [
      '# Tasks',
      '',
      '## Tasks',
      '',
      '| Task | Name | Points | Batch | Depends on | Test strategy |',
      '|---|---|---|---|---|---|',
      ...rows,
      '',
      '## Batches',
      '',
      '| Batch | Tasks | Points | Why together |',
      '|---|---|---|---|',
      '| 1 | 01 | 3 | first |',
      '| 2 | 02 | 3 | needs 01 |',
      '| 3 | 03 | 3 | needs 02 |',
      '',
      '## Coverage',
      '',
      '| Criterion | Tasks |',
      '|---|---|',
      '| AC-01 | 01 |',
      '| AC-02 | 02, 03 |',
      '',
      '## Self-check',
      '',
      '- [x] Every task row has its task file beside the index.',
      '- [x] Every dependency is a task of an earlier batch.',
      '- [x] Every task has points from 1, 2, 3, 5, 8 and a test strategy.',
      '- [x] Every acceptance criterion or test case id is covered by a task.',
      '',
    ].join('\n'),
  );
  for (const id of ['01', '02', '03']) write(dir, `_docs/02_tasks/${id}_task_${id}.md`, filledTemplate('decompose', 'templates/task.md'));
}

/** A repository at Implement (step 6), not started, its index three batches. */
function atImplement(): string {
  const dir = repo();
  problemDone(dir);
  for (let i = 0; i < 10; i++) {
    const next = autopilot(dir, 'next', '--json');
    const json = next.json<NextJson>();
    if (json.step === 6) return dir;
    if (json.step === 5) writeThreeBatches(dir);
    else for (const file of json.done_when!) write(dir, file.replace('*', '01'));
    const done = autopilot(dir, 'done');
    expect([0, 3], `${json.step}: ${done.stdout}${done.stderr}`).toContain(done.code);
    if (done.code === 3) expect(autopilot(dir, 'decide', 'B').code).toBe(0);
  }
  throw new Error('never reached Implement');
}

/** The agent's work on batch `batch` of three: a source file, the suite run, the report. */
function batchWork(dir: string, batch: number): void {
  const id = String(batch).padStart(2, '0');
  write(dir, `src/task_${id}.js`, `// task ${id}\n`);
  testProject(dir);
  expect(autopilot(dir, 'exec').code).toBe(0);
  write(dir, `_docs/03_implementation/batch_${id}.md`, batchReport(batch, [id], [batch === 1 ? 'AC-01' : 'AC-02']));
}

describe('batches are the engine’s', () => {
  it('`sub_step: batch 3 of 3` after batch 1 skips nothing: `next` hands out batch 2, 1 edit held', () => {
    const dir = atImplement();
    expect(autopilot(dir, 'next', '--json').json<NextJson>().sub_step).toBe('batch 1 of 3 — 01');
    batchWork(dir, 1);
    expect(autopilot(dir, 'done').code).toBe(0);
    editPointer(dir, { sub_step: 'batch 3 of 3 — 03' });
    const next = autopilot(dir, 'next', '--json');
    expect(next.code, next.stdout).toBe(0);
    expect(next.json<NextJson>().sub_step).toBe('batch 2 of 3 — 02');
    expect(heldDrift(next.json<NextJson>())).toHaveLength(1);
    expect(journal(dir).filter((e) => e.event === 'batch_started' && e.batch === 3)).toHaveLength(0);
  });

  it('issue 30 point 6: a person’s words in `sub_step` on a batch step are kept after the engine’s `batch 1 of 3 — 01`, and batch 1 stays the batch', () => {
    const dir = atImplement();
    expect(autopilot(dir, 'next').code).toBe(0);
    // Half of batch 1's report is on disk already: the person's words must not send the run to batch 2.
    write(dir, '_docs/03_implementation/batch_01.md', '# Batch 01 report\n\nhalf written\n');
    editPointer(dir, { sub_step: 'pairing with Dana on the parser' });
    const next = autopilot(dir, 'next', '--json');
    expect(next.code, next.stdout).toBe(0);
    expect(next.json<NextJson>().sub_step).toBe('batch 1 of 3 — 01 (pairing with Dana on the parser)');
    expect(read(dir, POINTER)).toContain('sub_step: batch 1 of 3 — 01 (pairing with Dana on the parser)');
    expect(journal(dir).filter((e) => e.event === 'batch_started')).toHaveLength(1);
  });
});

describe('the acceptance criteria are the person’s (issue 29 point 8)', () => {
  it('deleting AC-02 during Run Tests is held: `done` refused (exit 2, 0 events), the deletion in no commit, until a person adopts it', () => {
    const dir = repo();
    problemDone(dir);
    expect(journal(dir)).toContainEqual(
      expect.objectContaining({
        event: 'step_completed',
        step: 1,
        criteria: { file: CRITERIA, items: [expect.objectContaining({ id: 'AC-01' }), expect.objectContaining({ id: 'AC-02' })] },
      }),
    );
    walkTo(dir, 7);
    const pinned = read(dir, CRITERIA);
    writeFileSync(join(dir, CRITERIA), pinned.replace(/^- \*\*AC-02\*\*.*\n/m, ''));
    // The test report names only AC-01: the trace would ask only for it.
    writeFileSync(join(dir, '_docs/03_implementation/test_report.md'), read(dir, '_docs/03_implementation/test_report.md').replace(/AC-02/g, 'the rest'));

    const seen = status(dir);
    expect(heldDrift(seen)).toEqual([expect.objectContaining({ kind: 'held-criteria', message: expect.stringContaining('AC-02') })]);
    expect(autopilot(dir, 'check').code).toBe(2);
    const before = events(dir);
    const head = git(dir, 'rev-parse', 'HEAD');
    const done = autopilot(dir, 'done', '--json');
    expect(done.code, done.stdout).toBe(2);
    expect(done.stdout).toContain('AC-02');
    expect(done.stdout).toContain('autopilot adopt');
    expect(events(dir)).toEqual(before);
    expect(git(dir, 'rev-parse', 'HEAD')).toBe(head);
    expect(git(dir, 'show', `HEAD:${CRITERIA}`)).toContain('AC-02');

    // Put back, the step completes as before.
    writeFileSync(join(dir, CRITERIA), pinned);
    expect(heldDrift(status(dir))).toEqual([]);
    writeFileSync(join(dir, CRITERIA), pinned.replace(/^- \*\*AC-02\*\*.*\n/m, ''));
    // Or a person adopts the edit: pinned anew, journaled as theirs.
    const adopt = autopilot(dir, 'adopt', '--json');
    expect(adopt.code, adopt.stdout + adopt.stderr).toBe(0);
    expect(journal(dir).filter((e) => e.event === 'edit_adopted')).toEqual([
      expect.objectContaining({ actor: 'person', what: 'criteria', changes: ['AC-02 dropped'], criteria: expect.objectContaining({ file: CRITERIA }) }),
    ]);
    expect(heldDrift(status(dir))).toEqual([]);
    const after = autopilot(dir, 'done');
    expect(after.code, after.stdout + after.stderr).toBe(0);
    expect(readFileSync(join(dir, CRITERIA), 'utf8')).not.toContain('AC-02');
  });
});
