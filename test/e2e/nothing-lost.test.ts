/**
 * The faults "Nothing lost" lists, one test each, through the built CLI on
 * real folders: each failed before the journal became the record.
 */
import { inDir } from '../helpers/line.js';
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chainHash } from '../../src/formats/journal-line.js';
import { parsePointer } from '../../src/formats/pointer/parse-pointer.js';
import { autopilot, journal, read, snapshot, tempRepo, write, type NextJson } from '../helpers/cli.js';
import { ROOT } from '../helpers/engine.js';

const POINTER = '_docs/_autopilot_state.md';
const JOURNAL = '_docs/_autopilot/journal.jsonl';
const BIN = join(ROOT, 'bin', 'autopilot.js');

/** Runs the CLI with the process killing itself at a named moment. */
function crashAt(dir: string, point: string, ...args: string[]): number | null {
  const run = spawnSync(process.execPath, [BIN, ...inDir(dir, args)], {
    encoding: 'utf8',
    env: { ...process.env, AUTOPILOT_SESSION: '', AUTOPILOT_CRASH_AT: point },
  });
  return run.signal === 'SIGKILL' ? null : run.status;
}

function greenfield(): string {
  const dir = tempRepo();
  expect(autopilot(dir, 'init', '--flow', 'greenfield').code).toBe(0);
  return dir;
}

const status = (dir: string) => autopilot(dir, 'status', '--json').json<NextJson>();
const events = (dir: string, event: string) => journal(dir).filter((e) => e.event === event);

describe('nothing lost: the journal is the record', () => {
  it('three `fail`s each killed between the journal and the pointer: 3 failures on record, the step failed at 3 of 3', () => {
    const dir = greenfield();
    for (let attempt = 1; attempt <= 3; attempt++) {
      expect(autopilot(dir, 'next').code).toBe(0);
      expect(crashAt(dir, 'after-journal', 'fail', '--reason', `attempt ${attempt} broke`)).toBeNull();
    }
    expect(events(dir, 'step_failed')).toHaveLength(3);
    expect(status(dir)).toMatchObject({ step: 1, status: 'failed', retry_count: 3 });
    const next = autopilot(dir, 'next');
    expect(next.code).toBe(3);
    expect(next.stdout).toContain('FAILED 3 TIMES');
    expect(parsePointer(read(dir, POINTER), POINTER).position).toMatchObject({ status: 'failed', retryCount: 3 });
  });

  it('a pointer deleted after three failures is rebuilt as the failed step, with its sub-step, and still needs a person', () => {
    const dir = greenfield();
    autopilot(dir, 'next');
    autopilot(dir, 'substep', '2 — Restrictions');
    for (let i = 0; i < 3; i++) {
      autopilot(dir, 'next');
      autopilot(dir, 'fail', '--reason', `no ${i}`);
    }
    rmSync(join(dir, POINTER));
    const rebuilt = status(dir);
    expect(rebuilt).toMatchObject({ step: 1, status: 'failed', retry_count: 3, source: 'state' });
    expect(rebuilt.drift.map((d) => d.kind)).toEqual(['rebuilt']);
    expect(autopilot(dir, 'next').code).toBe(3);
    expect(autopilot(dir, 'done', '--force', '--reason', 'x').code).toBe(3);
  });

  it('a pointer moved aside mid-step keeps the sub-step it had', () => {
    const dir = greenfield();
    autopilot(dir, 'next');
    autopilot(dir, 'substep', '3 — Acceptance criteria');
    renameSync(join(dir, POINTER), join(dir, 'aside.md'));
    expect(autopilot(dir, 'next', '--json').json<NextJson>()).toMatchObject({ step: 1, action: 'resume', sub_step: '3 — Acceptance criteria' });
  });

  it('a pointer rolled back to an older version is brought up to the journal, and `check` says so until then', () => {
    const dir = greenfield();
    autopilot(dir, 'next');
    const old = read(dir, POINTER);
    autopilot(dir, 'fail', '--reason', 'one');
    autopilot(dir, 'next');
    autopilot(dir, 'fail', '--reason', 'two');
    writeFileSync(join(dir, POINTER), old); // what `git checkout` of an older commit does
    const check = autopilot(dir, 'check');
    expect(check.code).toBe(2);
    expect(check.stdout).toContain('the pointer is behind the journal');
    expect(status(dir)).toMatchObject({ retry_count: 2, status: 'not_started' });
    expect(autopilot(dir, 'next').code).toBe(0);
    expect(parsePointer(read(dir, POINTER), POINTER).position).toMatchObject({ retryCount: 2, status: 'in_progress' });
    expect(events(dir, 'position_repaired').at(-1)!.drift).toEqual([expect.stringContaining('the pointer is behind the journal')]);
    expect(autopilot(dir, 'check').code).toBe(0);
  });

  describe('the journal lost under a pointer that names event 5: loud in `check` (exit 2, naming the file and the way back) and in `status`, and held until a person adopts', () => {
    /** init, next and three sub-steps: the pointer names event 5. */
    function atEvent5(): string {
      const dir = greenfield();
      autopilot(dir, 'next');
      for (const sub of ['1 — Interview', '2 — Restrictions', '3 — Acceptance criteria']) expect(autopilot(dir, 'substep', sub).code).toBe(0);
      expect(read(dir, POINTER)).toContain('· event 5 ·');
      return dir;
    }
    const cases: [string, (dir: string) => void, string][] = [
      ['emptied', (dir) => writeFileSync(join(dir, JOURNAL), ''), 'event 5 expected, 0 found'],
      ['deleted', (dir) => rmSync(join(dir, JOURNAL)), 'event 5 expected, 0 found'],
      [
        'cut to 3 of 5 events',
        (dir) => writeFileSync(join(dir, JOURNAL), read(dir, JOURNAL).split('\n').slice(0, 3).join('\n') + '\n'),
        'event 5 expected, 3 found',
      ],
    ];
    for (const [how, lose, says] of cases) {
      // Before issue 29's journal-cut gap was closed, the pointer stood and the next command went on: a cut journal revived a failed step.
      it(`${how}: check and status say the record is lost, every writing command is held (exit 2, 0 events), and a person's adopt numbers on from 6`, () => {
        const dir = atEvent5();
        lose(dir);
        const check = autopilot(dir, 'check');
        expect(check.code).toBe(2);
        expect(check.stdout).toContain(`${JOURNAL}: the journal lost events: ${says}`);
        expect(check.stdout).toContain('autopilot adopt');
        expect(check.stdout).toContain('1 problem(s)');
        const json = autopilot(dir, 'check', '--json').json<{ problems: { file: string; message: string }[] }>();
        expect(json.problems).toEqual([expect.objectContaining({ file: JOURNAL, message: expect.stringContaining(says) })]);

        const text = autopilot(dir, 'status');
        expect(text.code).toBe(0);
        expect(text.stdout).not.toContain('Problems  none');
        expect(text.stdout).toMatch(/Problems\n {2}! the journal lost events: event 5 expected/);
        const seen = status(dir);
        expect(seen).toMatchObject({ step: 1, status: 'in_progress', sub_step: '3 — Acceptance criteria' });
        expect(seen.drift).toEqual([
          { kind: how === 'cut to 3 of 5 events' ? 'journal-behind' : 'journal-gone', step: 1, message: expect.stringContaining(says) },
        ]);

        // Held: nothing is written until a person adopts the position.
        const before = read(dir, POINTER);
        const next = autopilot(dir, 'next');
        expect(next.code).toBe(2);
        expect(next.stderr).toContain(says);
        expect(read(dir, POINTER)).toBe(before);
        expect(autopilot(dir, 'adopt').code).toBe(0);
        expect(journal(dir).filter((e) => e.event === 'edit_adopted')).toEqual([expect.objectContaining({ what: 'journal', actor: 'person' })]);
        expect(autopilot(dir, 'next').code).toBe(0);
        expect(
          Math.min(
            ...journal(dir)
              .map((e) => e.seq as number)
              .filter((seq) => seq > 3),
          ),
        ).toBe(6);
        expect(status(dir)).toMatchObject({ sub_step: '3 — Acceptance criteria', drift: [] });
        expect(autopilot(dir, 'check').code).toBe(0);
      });
    }
  });

  it('a torn last journal line is skipped by every reader, and the next event starts on a line of its own', () => {
    const dir = greenfield();
    autopilot(dir, 'next');
    writeFileSync(join(dir, JOURNAL), read(dir, JOURNAL) + '{"seq":99,"at":"2026-1', { flag: 'w' });
    expect(status(dir)).toMatchObject({ step: 1, status: 'in_progress' });
    const check = autopilot(dir, 'check');
    expect(check.stdout).toContain('the last journal line is torn');
    expect(autopilot(dir, 'substep', '2 — Restrictions').code).toBe(0);
    const lines = read(dir, JOURNAL).trimEnd().split('\n');
    expect(lines.at(-2)).toBe('{"seq":99,"at":"2026-1');
    expect(JSON.parse(lines.at(-1)!)).toMatchObject({ event: 'substep', sub_step: '2 — Restrictions' });
    expect(autopilot(dir, 'log', '-n', '1').stdout).toContain('substep');
    expect(status(dir)).toMatchObject({ step: 1, status: 'in_progress', sub_step: '2 — Restrictions', drift: [] });
  });

  it('an interrupted pointer write leaves no temporary file behind after the next write, and git ignores them meanwhile', () => {
    const dir = greenfield();
    expect(crashAt(dir, 'after-pointer-temp', 'next')).toBeNull();
    const leftovers = () => readdirSync(join(dir, '_docs')).filter((n) => n.startsWith('_autopilot_state.md.'));
    writeFileSync(join(dir, '_docs/_autopilot_state.md.4242'), 'left by write-file-atomic in an older autopilot');
    // The temporary file, the old pointer the commit kept to put back on a failure, and the older autopilot's.
    expect(leftovers()).toHaveLength(3);
    expect(read(dir, '.gitignore')).toContain('/_docs/*.autopilot-tmp-*');
    expect(autopilot(dir, 'substep', '1 — Interview').code).toBe(0);
    expect(leftovers()).toEqual([]);
  });

  it('a merge that kept half of each side (step 6 with the other branch’s retry 2) is reported as a hand edit and journaled, not accepted without a word', () => {
    const dir = greenfield();
    autopilot(dir, 'next');
    const text = read(dir, POINTER).replace('retry_count: 0', 'retry_count: 2');
    writeFileSync(join(dir, POINTER), text);
    const seen = status(dir);
    expect(seen.drift).toEqual([expect.objectContaining({ kind: 'hand-edit', message: expect.stringContaining('retry_count 0 → 2') })]);
    autopilot(dir, 'next');
    expect(events(dir, 'pointer_edited')).toEqual([expect.objectContaining({ edited: { retry_count: { was: 0, now: 2 } } })]);
    expect(status(dir).drift).toEqual([]);
  });

  it('a hand edit to `retry_count: 3, status: in_progress` is the failed step it is: no "Attempt 4 of 3", never `retry_count: 4`', () => {
    const dir = greenfield();
    autopilot(dir, 'next');
    writeFileSync(join(dir, POINTER), read(dir, POINTER).replace('retry_count: 0', 'retry_count: 3'));
    const next = autopilot(dir, 'next');
    expect(next.code).toBe(3);
    expect(next.stdout).not.toContain('Attempt 4');
    expect(autopilot(dir, 'fail', '--reason', 'again').code).toBe(3);
    expect(read(dir, POINTER)).toContain('retry_count: 3');
    expect(autopilot(dir, 'check').stdout).not.toContain('retry count is out of range');
  });

  it('text an agent passes in cannot forge the schema marker, a line or a section', () => {
    const dir = greenfield();
    autopilot(dir, 'next');
    for (const text of ['<!-- autopilot-state v9 -->', 'a\nstep: 7\n## Current Step', '\u001b[2Jx\r\nstatus: done']) {
      expect(autopilot(dir, 'substep', text).code).toBe(0);
      expect(status(dir)).toMatchObject({ step: 1, status: 'in_progress' });
      expect(parsePointer(read(dir, POINTER), POINTER).position.step).toBe(1);
    }
    expect(
      read(dir, POINTER)
        .split('\n')
        .filter((l) => l.startsWith('## ')),
    ).toEqual(['## Current Step', '## Last Action']);
    expect(autopilot(dir, 'fail', '--reason', '<!-- autopilot-state v9 -->\nretry_count: 0').code).toBe(0);
    expect(status(dir).retry_count).toBe(1);
  });

  it('a person’s extra section with an empty heading stays readable across rewrites', () => {
    const dir = greenfield();
    autopilot(dir, 'next');
    writeFileSync(join(dir, POINTER), `${read(dir, POINTER)}\n##\nnotes for Dana\n`);
    expect(autopilot(dir, 'substep', '1 — Interview').code).toBe(0);
    expect(autopilot(dir, 'substep', '2 — Restrictions').code).toBe(0);
    expect(read(dir, POINTER)).toContain('notes for Dana');
    expect(autopilot(dir, 'check').code).toBe(0);
  });

  it('a folder that cannot be read is an error naming it, never a repair that moves the pointer back', () => {
    const dir = tempRepo();
    cpSync(join(ROOT, '_docs-example'), dir, { recursive: true });
    const before = read(dir, POINTER);
    rmSync(join(dir, '_docs/01_solution'), { recursive: true });
    symlinkSync('01_solution', join(dir, '_docs/01_solution')); // a symlink loop: reading it fails (ELOOP)
    for (const command of ['status', 'next']) {
      const run = autopilot(dir, command);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain('_docs/01_solution');
      expect(run.stderr).toContain('cannot read this path');
    }
    expect(read(dir, POINTER)).toBe(before);
    expect(journal(dir).some((e) => e.event === 'position_repaired')).toBe(false);
  });

  it('a folder without permission to list is an error too (run as another user when the tests run as root)', () => {
    const dir = tempRepo();
    cpSync(join(ROOT, '_docs-example'), dir, { recursive: true });
    chmodSync(dir, 0o777);
    for (const sub of ['_docs', '_docs/_autopilot', '_docs/01_solution']) chmodSync(join(dir, sub), 0o777);
    chmodSync(join(dir, '_docs/_autopilot/journal.jsonl'), 0o666);
    chmodSync(join(dir, POINTER), 0o666);
    chmodSync(join(dir, '_docs/01_solution'), 0o000);
    const asRoot = process.getuid?.() === 0;
    const run = spawnSync(process.execPath, [BIN, '-C', dir, 'next'], {
      encoding: 'utf8',
      env: { ...process.env, AUTOPILOT_SESSION: '' },
      ...(asRoot ? { uid: 65534, gid: 65534 } : {}),
    });
    chmodSync(join(dir, '_docs/01_solution'), 0o755);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('cannot read this path (EACCES)');
  });
});

describe('nothing lost: history at scale and `log`', () => {
  it('`log -n 0` prints nothing; `log -n 2` prints the last two events, read from the end', () => {
    const dir = greenfield();
    autopilot(dir, 'next');
    autopilot(dir, 'substep', 'one');
    autopilot(dir, 'substep', 'two');
    expect(autopilot(dir, 'log', '-n', '0').stdout).toBe('');
    const two = autopilot(dir, 'log', '-n', '2', '--json').json<{ events: { sub_step: string }[] }>().events;
    expect(two.map((e) => e.sub_step)).toEqual(['one', 'two']);
  });

  it('a skipped optional step still counts after 5,000 later events, through the journal index a writing command keeps', () => {
    const dir = greenfield();
    const flows = JSON.parse(readFileSync(join(ROOT, 'dist/flows.json'), 'utf8')) as { entries: Record<string, { flow: { steps: { doneWhen: string[] }[] } }> };
    const gf = Object.entries(flows.entries).find(([k]) => k.startsWith('greenfield:'))![1].flow;
    for (let step = 1; step <= 7; step++) {
      if (step === 4) continue;
      for (const p of gf.steps[step - 1]!.doneWhen) write(dir, `_docs/${p.replace('*', '01')}`);
    }
    // The files say steps 1–7 are done, and the seed's pointer says the run stands at step 8 (files alone are
    // never walked past the research decision).
    write(dir, '_docs/_autopilot_state.md', 'flow: greenfield\nstep: 8\nname: Security Audit\nstatus: not_started\nsub_step: 0\nretry_count: 0\n');
    expect(autopilot(dir, 'next', '--json').json<NextJson>()).toMatchObject({ step: 8, action: 'start' });
    expect(autopilot(dir, 'skip', '--reason', 'no audit for a prototype').code).toBe(0);
    // Thousands of later events, appended as an older autopilot's long history would have them: each line names
    // the one before it, none carries the journal index (so it is derived from every line, and cached).
    const { journal_index: _carried, ...last } = journal(dir).at(-1)!;
    let prev = chainHash(read(dir, JOURNAL).trimEnd().split('\n').at(-1)!);
    const filler = Array.from({ length: 5000 }, (_, i) => {
      const line = JSON.stringify({ ...last, prev, seq: (last.seq as number) + i + 1, event: 'substep', sub_step: `s${i}` });
      prev = chainHash(line);
      return line;
    }).join('\n');
    writeFileSync(join(dir, JOURNAL), `${read(dir, JOURNAL)}${filler}\n`);
    expect(status(dir)).toMatchObject({ step: 9, drift: [] });
    expect(autopilot(dir, 'next', '--json').json<NextJson>()).toMatchObject({ step: 9, action: 'start', drift: [] });
    const index = JSON.parse(read(dir, '_docs/_autopilot/cache/journal-index.json')) as { steps: Record<string, unknown> };
    expect(index.steps['greenfield|8']).toMatchObject({ w: 'skipped' });
    rmSync(join(dir, '_docs/_autopilot/cache'), { recursive: true });
    expect(status(dir)).toMatchObject({ step: 9, drift: [] });
  });
});

describe('nothing lost: `check` on 300,000 events in one batch', () => {
  /** Appends `count` sub-step events as one command's batch (only the last carries the pointer); `chained`: each names the line before it. */
  function appendBatch(dir: string, count: number, chained: boolean): void {
    const { journal_index: _carried, pointer, prev: _prev, ...last } = journal(dir).at(-1)!;
    const first = (last.seq as number) + 1;
    const start = chainHash(read(dir, JOURNAL).trimEnd().split('\n').at(-1)!);
    let prev = start;
    const lines: string[] = new Array<string>(count);
    for (let i = 0; i < count; i++) {
      const line = JSON.stringify({ prev, ...last, seq: first + i, event: 'substep', sub_step: `s${i}`, ...(i === count - 1 ? { pointer } : {}) });
      if (chained) prev = chainHash(line);
      lines[i] = line;
    }
    writeFileSync(join(dir, JOURNAL), `${read(dir, JOURNAL)}${lines.join('\n')}\n`);
  }

  it('300,000 chained events: every one read, no problem, exit 0', () => {
    const dir = greenfield();
    autopilot(dir, 'next');
    appendBatch(dir, 300_000, true);
    const check = autopilot(dir, 'check');
    expect(check.stderr).toBe('');
    expect(check.code).toBe(0);
    expect(check.stdout).toContain('300002 journal events: no problems');
  });

  it('300,000 events each naming the same line (a seam a line): 100 named, the rest counted in one problem, exit 2', () => {
    const dir = greenfield();
    autopilot(dir, 'next');
    appendBatch(dir, 300_000, false);
    const check = autopilot(dir, 'check', '--json');
    expect(check.stderr).toBe('');
    expect(check.code).toBe(2);
    const problems = check.json<{ problems: { line: number; message: string }[] }>().problems;
    expect(problems).toHaveLength(101);
    expect(problems.at(-1)!.message).toMatch(/^299,899 more breaks in the chain or the numbering from here/);
  });
});

describe('nothing lost: loud when a guard is off', () => {
  it('a read-only autopilot folder: status and check say so, and step commands refuse rather than run unguarded', () => {
    const dir = greenfield();
    const asRoot = process.getuid?.() === 0;
    if (asRoot) {
      // Root writes anywhere: stand the read-only folder up for another user.
      for (const p of ['', '_docs', '_docs/_autopilot']) chmodSync(join(dir, p), 0o755);
      for (const f of [POINTER, JOURNAL]) chmodSync(join(dir, f), 0o644);
    } else chmodSync(join(dir, '_docs/_autopilot'), 0o555);
    const as = asRoot ? { uid: 65534, gid: 65534 } : {};
    const run = (...args: string[]) =>
      spawnSync(process.execPath, [BIN, ...inDir(dir, args)], { encoding: 'utf8', env: { ...process.env, AUTOPILOT_SESSION: '' }, ...as });
    const before = snapshot(dir);
    const s = run('status');
    expect(s.status).toBe(0);
    expect(s.stdout).toContain('Guard off');
    expect(run('check').stdout).toContain('is not writable');
    const next = run('next');
    expect(next.status).toBe(2);
    expect(next.stderr).toContain('_docs/_autopilot/lock: the lock cannot be taken (EACCES)');
    expect(snapshot(dir)).toEqual(before);
    if (!asRoot) chmodSync(join(dir, '_docs/_autopilot'), 0o755);
  });
});
