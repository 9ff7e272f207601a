/**
 * A commit taken back (`io/undo.ts`): what it created is removed, what it
 * replaced or removed is put back byte for byte, the journal is cut back, the
 * folders it made are removed; once the commit is whole, the old versions it
 * kept are let go. And a full disk met anywhere reads as one (`knownError`).
 * What a killed writer left, in any folder, is swept by the next write.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { errorJson, exitCodeOfError } from '../../../src/errors.js';
import { leftoverPid, sweepLeftovers, writeFileAtomically } from '../../../src/io/atomic-write.js';
import { diskFullError } from '../../../src/io/crash-point.js';
import { appendJournal } from '../../../src/io/journal.js';
import { Undo } from '../../../src/io/undo.js';
import { errorText } from '../../../src/render/text.js';
import { tempRepo } from '../../helpers/cli.js';

describe('Undo', () => {
  it('puts back 3 of 3 changes (a file replaced, a file created in a folder it made, a file removed) and the journal, newest first', () => {
    const dir = tempRepo();
    const journal = join(dir, 'journal.jsonl');
    writeFileSync(journal, '{"seq":1}\n');
    writeFileSync(join(dir, 'pointer.md'), 'old pointer\n');
    writeFileSync(join(dir, 'lease.json'), '{"old":true}\n');
    const undo = new Undo();
    undo.journal(journal);
    appendJournal(journal, '{"seq":2}\n');
    undo.keep(join(dir, 'pointer.md'));
    writeFileAtomically(join(dir, 'pointer.md'), 'new pointer\n');
    undo.mkdir(join(dir, 'a/b'));
    undo.keep(join(dir, 'a/b/new.md'));
    writeFileAtomically(join(dir, 'a/b/new.md'), 'new\n');
    undo.keep(join(dir, 'lease.json'));
    unlinkSync(join(dir, 'lease.json'));

    expect(undo.undo()).toEqual([]);
    expect(readFileSync(journal, 'utf8')).toBe('{"seq":1}\n');
    expect(readFileSync(join(dir, 'pointer.md'), 'utf8')).toBe('old pointer\n');
    expect(readFileSync(join(dir, 'lease.json'), 'utf8')).toBe('{"old":true}\n');
    expect(existsSync(join(dir, 'a'))).toBe(false);
    expect(readdirSync(dir).sort()).toEqual(['journal.jsonl', 'lease.json', 'pointer.md']);
  });

  it('a journal the batch created is removed, not left empty', () => {
    const dir = tempRepo();
    const journal = join(dir, 'journal.jsonl');
    const undo = new Undo();
    undo.journal(journal);
    appendJournal(journal, '{"seq":1}\n');
    expect(undo.undo()).toEqual([]);
    expect(existsSync(journal)).toBe(false);
  });

  it('a write that failed before its rename leaves the file as it was, and no kept link behind', () => {
    const dir = tempRepo();
    const file = join(dir, 'pointer.md');
    writeFileSync(file, 'old\n');
    const inode = statSync(file).ino;
    const undo = new Undo();
    undo.keep(file);
    expect(() => writeFileAtomically(file, 'new\n', { diskFull: true })).toThrow(/ENOSPC/);
    expect(undo.undo()).toEqual([]);
    expect(readFileSync(file, 'utf8')).toBe('old\n');
    expect(statSync(file).ino).toBe(inode);
    expect(readdirSync(dir)).toEqual(['pointer.md']);
  });

  it('once the commit is whole, the old versions kept beside the files are let go', () => {
    const dir = tempRepo();
    writeFileSync(join(dir, 'pointer.md'), 'old\n');
    const undo = new Undo();
    undo.keep(join(dir, 'pointer.md'));
    expect(readdirSync(dir)).toHaveLength(2);
    writeFileAtomically(join(dir, 'pointer.md'), 'new\n');
    undo.done();
    expect(readdirSync(dir)).toEqual(['pointer.md']);
    expect(readFileSync(join(dir, 'pointer.md'), 'utf8')).toBe('new\n');
  });

  it('a folder it made that holds something else by then stays', () => {
    const dir = tempRepo();
    const undo = new Undo();
    undo.mkdir(join(dir, 'made'));
    mkdirSync(join(dir, 'made/other'));
    expect(undo.undo()).toEqual([]);
    expect(existsSync(join(dir, 'made/other'))).toBe(true);
  });
});

describe('a full disk outside a commit', () => {
  it.skipIf(!existsSync('/dev/full'))(
    'reads as a full disk (exit 2, disk_full), never as an internal error: a real ENOSPC (/dev/full), and one naming its file',
    () => {
      let caught: unknown;
      try {
        writeFileSync('/dev/full', 'x');
      } catch (error) {
        caught = error;
      }
      expect((caught as NodeJS.ErrnoException).code).toBe('ENOSPC');
      expect(exitCodeOfError(caught)).toBe(2);
      expect(errorJson(caught).error).toMatchObject({ code: 'disk_full', message: expect.stringContaining('the disk is full: a file could not be written') });
      expect(errorText(caught)).not.toMatch(/internal error/);

      const named = diskFullError('/repo/_docs/_autopilot/journal.cut-1.txt');
      expect(exitCodeOfError(named)).toBe(2);
      expect(errorJson(named).error).toMatchObject({ code: 'disk_full', file: '/repo/_docs/_autopilot/journal.cut-1.txt', received: 'ENOSPC' });
      expect(errorText(named)).toMatch(/^\/repo\/_docs\/_autopilot\/journal\.cut-1\.txt: the disk is full: this file could not be written\n/);
    },
  );
});

describe('sweepLeftovers: what a killed writer left, in every folder autopilot writes into', () => {
  it('reads the writer from the name, temporary or kept copy; nothing else is one', () => {
    expect(leftoverPid('.gitignore.autopilot-tmp-kept-4242-0a1b2c3d')).toBe(4242);
    expect(leftoverPid('_autopilot_state.md.autopilot-tmp-17-ff00ff00')).toBe(17);
    for (const name of ['.gitignore', 'notes.autopilot-tmp-', 'x.autopilot-tmp-kept-abc-00', '_autopilot_state.md.4242', 'x.autopilot-tmp-12'])
      expect(leftoverPid(name), name).toBeUndefined();
  });

  it('removes 5 of 5 leftovers (4 of a process that is gone, in 3 folders, 1 a day old), and keeps a live writer’s and every other file', () => {
    const dir = tempRepo();
    const gone = spawnSync(process.execPath, ['-e', '0']).pid!;
    const live = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 20000)']);
    try {
      mkdirSync(join(dir, '_docs/_autopilot'), { recursive: true });
      mkdirSync(join(dir, '.claude'));
      const files = {
        [`.gitignore.autopilot-tmp-kept-${gone}-0a1b2c3d`]: true,
        [`.gitignore.autopilot-tmp-${gone}-0a1b2c3e`]: true,
        [`_docs/_autopilot/lease.json.autopilot-tmp-${gone}-00000001`]: true,
        [`.claude/settings.json.autopilot-tmp-kept-${gone}-00000002`]: true,
        [`AGENTS.md.autopilot-tmp-${live.pid!}-00000003`]: false,
        [`AGENTS.md.autopilot-tmp-kept-${process.pid}-00000004`]: false,
        [`.mcp.json.autopilot-tmp-${live.pid!}-00000005`]: true,
        '.gitignore': false,
        '_docs/_autopilot_state.md.4242': false,
      };
      for (const name of Object.keys(files)) writeFileSync(join(dir, name), 'x');
      // A live pid's leftover a day old: the pid was reused since.
      const dayAgo = new Date(Date.now() - 25 * 3600_000);
      utimesSync(join(dir, `.mcp.json.autopilot-tmp-${live.pid!}-00000005`), dayAgo, dayAgo);
      const removed = sweepLeftovers([dir, join(dir, '_docs/_autopilot'), join(dir, '.claude'), join(dir, 'no-such-folder'), dir]);
      expect(removed.map((p) => p.slice(dir.length + 1)).sort()).toEqual(
        Object.entries(files)
          .filter(([, goes]) => goes)
          .map(([name]) => name)
          .sort(),
      );
      for (const [name, goes] of Object.entries(files)) expect(existsSync(join(dir, name)), name).toBe(!goes);
    } finally {
      live.kill('SIGKILL');
    }
  });
});
