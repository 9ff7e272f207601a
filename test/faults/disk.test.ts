/**
 * Faults that must leave nothing half-done: a read-only docs folder whose
 * `_autopilot/` is writable (each command used to append to the journal, then
 * fail on the pointer), and a disk that fills mid-write (a journal line torn
 * in half, or a journal that ran ahead of a pointer that could not be
 * written). The full disk is injected at a named write (AUTOPILOT_ENOSPC_AT),
 * the read-only folder is real (another user, when the tests run as root).
 */
import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { snapshot } from '../helpers/cli.js';
import { cli, entries, freshDir, JOURNAL, LEASE, POINTER, tempFiles } from '../helpers/faults.js';

const NOBODY = 65534;
const asRoot = process.getuid?.() === 0;

/** Every file under `dir`, recursively: relative path → text (its time aside: a write undone still touched it). */
const files = (dir: string) => Object.fromEntries(Object.entries(snapshot(dir)).map(([path, value]) => [path, value.replace(/^[\d.]+:/, '')]));

describe('a read-only docs folder with a writable _autopilot/', () => {
  it.skipIf(!asRoot && process.platform === 'win32')(
    '5 of 5 `substep` calls refuse (exit 2 naming _docs), and nothing is written: no journal line, no repair',
    async () => {
      const dir = freshDir();
      expect((await cli(dir, ['next', '--json'])).code).toBe(0);
      const user = asRoot ? { uid: NOBODY } : {};
      if (asRoot) {
        // Root writes anywhere: the folders belong to root, read-only for another user; _autopilot/ is that user's.
        chmodSync(dir, 0o755);
        chmodSync(join(dir, '_docs'), 0o755);
        chmodSync(join(dir, POINTER), 0o644);
        const auto = join(dir, '_docs/_autopilot');
        chownSync(auto, NOBODY, NOBODY);
        for (const name of readdirSync(auto, { recursive: true }) as string[]) chownSync(join(auto, name), NOBODY, NOBODY);
      } else chmodSync(join(dir, '_docs'), 0o555);
      const before = files(dir);
      const journalBefore = readFileSync(join(dir, JOURNAL), 'utf8');
      const codes: (number | null)[] = [];
      for (let i = 0; i < 5; i++) {
        const r = await cli(dir, ['substep', `try ${i}`, '--json'], user);
        codes.push(r.code);
        expect(r.json?.error, r.stdout + r.stderr).toMatchObject({ code: 'guard_off' });
        expect(JSON.stringify(r.json?.error)).toContain('_docs');
        expect(JSON.stringify(r.json?.error)).toMatch(/not writable/);
      }
      expect(codes).toEqual([2, 2, 2, 2, 2]);
      expect(readFileSync(join(dir, JOURNAL), 'utf8'), 'no journal line').toBe(journalBefore);
      const after = files(dir);
      // The lock came and went; nothing else changed.
      expect(after).toEqual(before);
      if (!asRoot) chmodSync(join(dir, '_docs'), 0o755);
    },
  );
});

describe('a full disk', () => {
  it('mid-way through a journal line: the journal is cut back to before the batch, the pointer untouched, no lock left; the next command goes on', async () => {
    const dir = freshDir();
    expect((await cli(dir, ['next', '--json'])).code).toBe(0);
    const before = files(dir);
    const seqBefore = Number(entries(dir).at(-1)!.seq);
    const r = await cli(dir, ['substep', '2 — a long sub-step '.repeat(20), '--json'], { env: { AUTOPILOT_ENOSPC_AT: 'journal' } });
    expect(r.code, r.stdout + r.stderr).toBe(2);
    expect(r.json?.error).toMatchObject({ code: 'disk_full', file: JOURNAL, received: 'ENOSPC' });
    expect(files(dir), 'nothing half-written: journal, pointer and lock as before').toEqual(before);

    const again = await cli(dir, ['substep', '2 — after the disk was freed', '--json']);
    expect(again.code, again.stdout).toBe(0);
    expect(entries(dir).at(-1)).toMatchObject({ seq: seqBefore + 1, event: 'substep' });
    const check = await cli(dir, ['check', '--json']);
    expect(check.code, check.stdout).toBe(0);
  });

  it('at the pointer, after the journal was appended: the batch is taken back out of the journal; the command did nothing', async () => {
    const dir = freshDir();
    expect((await cli(dir, ['next', '--json'])).code).toBe(0);
    const before = files(dir);
    const size = statSync(join(dir, JOURNAL)).size;
    const r = await cli(dir, ['fail', '--reason', 'tests red', '--json'], { env: { AUTOPILOT_ENOSPC_AT: 'pointer' } });
    expect(r.code).toBe(2);
    expect(r.json?.error).toMatchObject({ code: 'disk_full', file: POINTER });
    expect(tempFiles(dir), 'no temporary file, no kept copy').toEqual([]);
    expect(statSync(join(dir, JOURNAL)).size).toBe(size);
    expect(files(dir)).toEqual(before);
    // The failure was not counted: retried, it is attempt 1.
    const retry = await cli(dir, ['fail', '--reason', 'tests red', '--json']);
    expect(retry.code, retry.stdout).toBe(0);
    expect(entries(dir).filter((e) => e.event === 'step_failed')).toHaveLength(1);
    expect((await cli(dir, ['status', '--json'])).json).toMatchObject({ retry_count: 1 });
  });
});

/** Every folder under `dir`, recursively (relative paths): a write taken back removes the folders it made too. */
function folders(dir: string): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    for (const e of readdirSync(join(dir, rel), { withFileTypes: true })) {
      if (!e.isDirectory()) continue;
      const path = rel ? `${rel}/${e.name}` : e.name;
      out.push(path);
      walk(path);
    }
  };
  walk('');
  return out.sort();
}

describe('a full disk at the lease, the files init sets up, a checkpoint: all or nothing', () => {
  const full = (at: string) => ({ env: { AUTOPILOT_ENOSPC_AT: at } });

  it('at the lease, after the journal and the pointer: 5 of 5 step commands take both back (exit 2, disk_full naming lease.json, "nothing was changed"); the next command goes on from the same event', async () => {
    const dir = freshDir();
    expect((await cli(dir, ['next', '--json'])).code).toBe(0);
    const before = files(dir);
    const seqBefore = Number(entries(dir).at(-1)!.seq);
    const commands = [
      ['substep', '2 — Restrictions'],
      ['fail', '--reason', 'tests red'],
      ['next'],
      ['next', '--take-over', '--session', 'B'],
      ['substep', '3 — Acceptance criteria'],
    ];
    const codes: (number | null)[] = [];
    for (const args of commands) {
      const r = await cli(dir, [...args, '--json'], full('lease'));
      codes.push(r.code);
      expect(r.json?.error, r.stdout + r.stderr).toMatchObject({
        code: 'disk_full',
        file: LEASE,
        message: expect.stringContaining('the disk is full: this file could not be written; nothing was changed'),
        received: 'ENOSPC',
      });
      expect(files(dir), `${args.join(' ')}: journal, pointer and lease as before`).toEqual(before);
    }
    expect(codes).toEqual([2, 2, 2, 2, 2]);
    expect(tempFiles(dir)).toEqual([]);
    const again = await cli(dir, ['substep', '2 — Restrictions', '--json']);
    expect(again.code, again.stdout).toBe(0);
    expect(entries(dir).at(-1)).toMatchObject({ seq: seqBefore + 1, event: 'substep' });
    expect((await cli(dir, ['check', '--json'])).code).toBe(0);
  });

  it('at the lease, on the first command a repository sees: no journal, no pointer, no lease left behind', async () => {
    const dir = freshDir();
    const r = await cli(dir, ['next', '--json'], full('lease'));
    expect(r.code).toBe(2);
    expect(r.json?.error).toMatchObject({ code: 'disk_full', file: LEASE });
    expect(files(dir)).toEqual({});
    expect((await cli(dir, ['next', '--json'])).json).toMatchObject({ step: 1, outcome: 'work' });
  });

  it("at the last of the 13 files `init --flow --hooks` sets up: the 12 written before it, the journal and the pointer are taken back, a person's .gitignore and AGENTS.md kept as they were, the folders it made removed", async () => {
    const dir = freshDir();
    writeFileSync(join(dir, '.gitignore'), 'node_modules/\n');
    writeFileSync(join(dir, 'AGENTS.md'), '# Agents\n\nOur own rules.\n');
    mkdirSync(join(dir, '.claude'));
    writeFileSync(join(dir, '.claude/settings.json'), '{ "permissions": { "allow": ["Bash(ls)"] } }\n');
    const before = files(dir);
    const foldersBefore = folders(dir);
    const r = await cli(dir, ['init', '--flow', 'greenfield', '--hooks', '--json'], full('file'));
    expect(r.code, r.stdout + r.stderr).toBe(2);
    expect(r.json?.error).toMatchObject({ code: 'disk_full', message: expect.stringContaining('nothing was changed') });
    expect(files(dir), 'every file as it was').toEqual(before);
    // The lock's folder is made before anything is written, and stays (empty).
    expect(folders(dir).filter((f) => !['_docs', '_docs/_autopilot'].includes(f))).toEqual(foldersBefore);
    expect(tempFiles(dir)).toEqual([]);

    const done = await cli(dir, ['init', '--flow', 'greenfield', '--hooks', '--json']);
    expect(done.code, done.stdout).toBe(0);
    const made = done.json?.commit as string[];
    // Every file init writes (made or added to), the journal and the pointer: what the failed run had written and took back.
    expect(made.filter((f) => f !== POINTER && f !== '_docs/_autopilot/journal.jsonl')).toHaveLength(13);
    expect(readFileSync(join(dir, '.gitignore'), 'utf8')).toMatch(/^node_modules\/\n/);
  });

  it('at the checkpoint a third failure takes: the journal and the pointer are put back; retried, the failure is counted once (3 of 3)', async () => {
    const dir = freshDir();
    for (let i = 1; i <= 2; i++) {
      expect((await cli(dir, ['next', '--json'])).code).toBe(0);
      expect((await cli(dir, ['fail', '--reason', `attempt ${i}`, '--json'])).code).toBe(0);
    }
    expect((await cli(dir, ['next', '--json'])).code).toBe(0);
    const before = files(dir);
    const r = await cli(dir, ['fail', '--reason', 'attempt 3', '--json'], full('checkpoint'));
    expect(r.code).toBe(2);
    expect(r.json?.error).toMatchObject({ code: 'disk_full', file: expect.stringMatching(/^_docs\/_autopilot\/checkpoints\//) });
    expect(files(dir)).toEqual(before);
    expect(existsSync(join(dir, '_docs/_autopilot/checkpoints'))).toBe(false);
    const retry = await cli(dir, ['fail', '--reason', 'attempt 3', '--json']);
    expect(retry.code, retry.stdout).toBe(3);
    expect(entries(dir).filter((e) => e.event === 'step_failed')).toHaveLength(3);
    expect((await cli(dir, ['status', '--json'])).json).toMatchObject({ status: 'failed', retry_count: 3 });
  });

  it('reads as a full disk on the command line: exit 2, "the disk is full" naming the file, what to do, no stack and no "internal error"', async () => {
    const dir = freshDir();
    expect((await cli(dir, ['next', '--json'])).code).toBe(0);
    const r = await cli(dir, ['substep', '2 — Restrictions'], full('lease'));
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      [
        `${LEASE}: the disk is full: this file could not be written; nothing was changed`,
        '  expected: free space on the disk',
        '  received: ENOSPC',
        'Free some disk space, then run the command again.',
        '',
      ].join('\n'),
    );
  });
});

describe('check --repair', () => {
  it('a torn journal line a kill left: check exits 2 naming it until `check --repair` cuts it (bytes kept in a side file, journaled); then 0', async () => {
    const dir = freshDir();
    expect((await cli(dir, ['next', '--json'])).code).toBe(0);
    // Killed half-way through its journal line.
    const killed = await cli(dir, ['substep', '1 — cut short', '--json'], { crashAt: 'mid-journal' });
    expect(killed.signal).toBe('SIGKILL');
    const torn = readFileSync(join(dir, JOURNAL), 'utf8').split('\n').at(-1)!;
    expect(torn.length).toBeGreaterThan(0);
    // The next command goes on, on a line of its own; the torn line stays in the middle.
    expect((await cli(dir, ['substep', '2 — after the kill', '--json'])).code).toBe(0);
    const check = await cli(dir, ['check', '--json']);
    expect(check.code).toBe(2);
    expect(check.stdout).toMatch(/journal/);

    const repaired = await cli(dir, ['check', '--repair', '--json']);
    expect(repaired.code, repaired.stdout).toBe(0);
    const said = repaired.json?.repaired as { cut_lines: number[]; kept_in: string };
    expect(said.cut_lines).toHaveLength(1);
    expect(readFileSync(join(dir, said.kept_in), 'utf8')).toBe(`line ${said.cut_lines[0]}: ${torn}\n`);
    const lines = readFileSync(join(dir, JOURNAL), 'utf8').trimEnd().split('\n');
    expect(lines.every((l) => JSON.parse(l) !== undefined)).toBe(true);
    expect(entries(dir).at(-1)).toMatchObject({ event: 'journal_repaired', cut_lines: said.cut_lines, kept_in: said.kept_in });
    expect((await cli(dir, ['status', '--json'])).json).toMatchObject({ sub_step: '2 — after the kill', drift: [] });
    expect((await cli(dir, ['check', '--json'])).code).toBe(0);
    // Nothing left to cut: a second repair changes nothing.
    const again = await cli(dir, ['check', '--repair', '--json']);
    expect(again.json?.repaired).toEqual({ cut_lines: [] });
  });
});
