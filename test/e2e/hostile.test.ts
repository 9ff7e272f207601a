/**
 * A repository is untrusted input: what people clone, merge and let agents
 * write. No hang, no crash, no write outside the repository, nothing that
 * runs in the person's terminal. Every case with a file outside the
 * repository that must stay untouched.
 */
import { spawn } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { autopilot, read, snapshot, tempRepo, write, type NextJson } from '../helpers/cli.js';
import { ROOT } from '../helpers/engine.js';

const POINTER = '_docs/_autopilot_state.md';
const BIN = join(ROOT, 'bin', 'autopilot.js');

function started(): string {
  const dir = tempRepo();
  expect(autopilot(dir, 'init', '--flow', 'greenfield').code).toBe(0);
  return dir;
}

/** A file outside the repository, and a check that it is exactly as it was. */
function outsideFile(): { path: string; untouched: () => void } {
  const path = join(tempRepo(), 'precious.txt');
  writeFileSync(path, 'nothing may write here\n');
  return { path, untouched: () => expect(readFileSync(path, 'utf8')).toBe('nothing may write here\n') };
}

function timedRun(dir: string, ...args: string[]) {
  const start = performance.now();
  const run = autopilot(dir, ...args);
  return { ...run, ms: performance.now() - start };
}

describe('hostile pointers cost what they are worth', () => {
  const cases: [string, (text: string) => string][] = [
    ['a heading with a run of 4,000 spaces', (t) => `${t}# a${' '.repeat(4000)}x\n`],
    ['20,000 `# h` lines', (t) => `${t}${'# h\n'.repeat(20_000)}`],
    ['a sub_step of 60,000 spaces between two letters', (t) => t.replace('sub_step: 0', `sub_step: a${' '.repeat(60_000)}x`)],
    ['a line of 60,000 `<!--`', (t) => `${t}${'<!--'.repeat(15_000)}\n`],
    ['a key of 50,000 letters', (t) => t.replace('status:', `${'s'.repeat(50_000)}:`)],
  ];
  for (const [name, mutate] of cases) {
    it(`answers within a second on ${name}`, () => {
      const dir = started();
      writeFileSync(join(dir, POINTER), mutate(read(dir, POINTER)));
      const run = timedRun(dir, 'status');
      expect([0, 2]).toContain(run.code);
      expect(run.ms).toBeLessThan(1000);
    });
  }

  it('refuses a pointer over 64 KB with exit 2 naming it, without reading it', () => {
    const dir = started();
    writeFileSync(join(dir, POINTER), `${read(dir, POINTER)}${'x'.repeat(10 * 1024 * 1024)}\n`);
    const run = timedRun(dir, 'status');
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('_docs/_autopilot_state.md: the pointer is 10');
    expect(run.ms).toBeLessThan(1000);
  });
});

describe('hostile journals', () => {
  it('`log` and `status` read past lines that are JSON but not events, and `check` names each with its line', () => {
    const dir = started();
    const journal = join(dir, '_docs/_autopilot/journal.jsonl');
    writeFileSync(journal, `${read(dir, '_docs/_autopilot/journal.jsonl')}{}\nnull\n{"at":1}\n${'['.repeat(5000)}${']'.repeat(5000)}\n`);
    expect(autopilot(dir, 'log').code).toBe(0);
    expect(autopilot(dir, 'log', '-n', '3').code).toBe(0);
    expect(autopilot(dir, 'status').code).toBe(0);
    const check = autopilot(dir, 'check', '--json').json<{ problems: { line: number }[] }>();
    expect(check.problems.map((p) => p.line)).toEqual([2, 3, 4, 5]);
  });
});

describe('no write outside the repository, through any link', () => {
  it('a flow cache file linked to a file outside is never written through', () => {
    const dir = started();
    const out = outsideFile();
    write(dir, '.autopilot/flows/mine.md', read(ROOT, 'flows/greenfield.md').replace('id: greenfield', 'id: mine'));
    mkdirSync(join(dir, '_docs/_autopilot/cache'), { recursive: true });
    symlinkSync(out.path, join(dir, '_docs/_autopilot/cache/flows.json'));
    // The cache is only a cache: the commands still work, they just do not keep the parse.
    expect(autopilot(dir, 'next').code).toBe(0);
    expect(autopilot(dir, 'check').code).toBe(0);
    out.untouched();
    expect(lstatSync(join(dir, '_docs/_autopilot/cache/flows.json')).isSymbolicLink()).toBe(true);
  });

  it('a cache folder, or the whole _autopilot folder, linked outside: nothing is written there', () => {
    for (const linked of ['_docs/_autopilot/cache', '_docs/_autopilot']) {
      const dir = tempRepo();
      const elsewhere = tempRepo();
      mkdirSync(join(dir, linked, '..'), { recursive: true });
      write(dir, '.autopilot/flows/mine.md', read(ROOT, 'flows/greenfield.md').replace('id: greenfield', 'id: mine'));
      symlinkSync(elsewhere, join(dir, linked));
      const next = autopilot(dir, 'next');
      expect(next.code).toBe(2);
      expect(next.stderr).toContain('outside the repository');
      expect(existsSync(join(elsewhere, 'flows.json'))).toBe(false);
      expect(existsSync(join(elsewhere, 'journal.jsonl'))).toBe(false);
      expect(existsSync(join(elsewhere, 'lock'))).toBe(false);
    }
  });

  it('a journal that is a dangling link to a file outside is refused, and the file is never created', () => {
    const dir = started();
    const target = join(tempRepo(), 'created-by-nobody.jsonl');
    const journal = join(dir, '_docs/_autopilot/journal.jsonl');
    writeFileSync(journal + '.bak', read(dir, '_docs/_autopilot/journal.jsonl'));
    rmSync(journal);
    symlinkSync(target, journal);
    const next = autopilot(dir, 'next');
    expect(next.code).toBe(2);
    expect(next.stderr).toContain('symlink');
    expect(existsSync(target)).toBe(false);
  });

  it('`init` refuses an AGENTS.md, a .gitignore or a .claude folder that links outside, and writes none of them', () => {
    for (const link of ['AGENTS.md', '.gitignore', '.claude']) {
      const dir = tempRepo();
      const out = outsideFile();
      const elsewhere = tempRepo();
      symlinkSync(link === '.claude' ? elsewhere : out.path, join(dir, link));
      const init = autopilot(dir, 'init');
      expect(init.code).toBe(2);
      expect(init.stderr).toMatch(/symlink|outside the repository/);
      out.untouched();
      expect(existsSync(join(elsewhere, 'commands'))).toBe(false);
      expect(existsSync(join(dir, '.gitattributes'))).toBe(false);
    }
  });

  it('a flow file behind a link out of the repository is not read', () => {
    const dir = tempRepo();
    const elsewhere = tempRepo();
    writeFileSync(join(elsewhere, 'secret.md'), read(ROOT, 'flows/greenfield.md').replace('id: greenfield', 'id: mine'));
    mkdirSync(join(dir, '.autopilot/flows'), { recursive: true });
    symlinkSync(join(elsewhere, 'secret.md'), join(dir, '.autopilot/flows/mine.md'));
    const check = autopilot(dir, 'check');
    expect(check.code).toBe(2);
    expect(check.stdout).toContain('.autopilot/flows/mine.md: this flow file leads outside the repository');
  });

  it('evidence behind a link out of the repository does not count, and `done` says so', () => {
    const dir = started();
    autopilot(dir, 'next');
    const elsewhere = tempRepo();
    writeFileSync(join(elsewhere, 'problem.md'), 'borrowed\n');
    writeFileSync(join(elsewhere, 'acceptance_criteria.md'), 'borrowed\n');
    symlinkSync(elsewhere, join(dir, '_docs/00_problem'));
    const done = autopilot(dir, 'done', '--json');
    expect(done.code).toBe(2);
    expect(done.json<NextJson>().error!.message).toContain('leads out of the repository');
    expect(lstatSync(join(dir, '_docs/00_problem')).isSymbolicLink()).toBe(true);
  });
});

/** A control character other than a line break: what must never reach a terminal raw. */
const hasControl = (text: string) => [...text].some((ch) => (ch < ' ' && ch !== '\n') || ch === '\u007f');

describe('safe text out', () => {
  it('escapes control characters from --reason and sub-steps, and from a session name a journal line holds: no escape sequence runs, no line is forged', () => {
    const dir = started();
    const session = 'evil\n2026-11-26T00:00:00Z  step_completed       greenfield#1 step 1 Problem';
    // A session name is letters, digits and a few marks: this one is refused, naming the rule, with nothing written.
    const refused = autopilot(dir, '--session', session, 'next', '--json');
    expect(refused.code).toBe(2);
    expect(refused.json<{ error: { message: string } }>().error.message).toContain('is not a session name');
    expect(autopilot(dir, '--session', 'agent', 'next').code).toBe(0);
    autopilot(dir, '--session', 'agent', 'fail', '--reason', '\u001b[31mred\u001b[0m\u0007');
    autopilot(dir, '--session', 'agent', 'substep', '\u001b]0;title\u0007x');
    // A journal is a file anyone can write: a hostile name put there by hand is shown escaped.
    const file = join(dir, '_docs/_autopilot/journal.jsonl');
    writeFileSync(file, readFileSync(file, 'utf8').replaceAll('"session":"agent"', `"session":${JSON.stringify(session)}`));
    const log = autopilot(dir, 'log');
    expect(hasControl(log.stdout)).toBe(false);
    expect(log.stdout.split('\n').filter((l) => l.startsWith('2026-11-26T00:00:00Z'))).toEqual([]);
    expect(log.stdout).toContain('\\n2026-11-26T00:00:00Z');
    const status = autopilot(dir, 'status');
    expect(hasControl(status.stdout)).toBe(false);
  });
});

describe('smaller edges', () => {
  it('a 70,000-character session name or checkpoint note is exit 2 naming it, with nothing written; a 70,000-character sub-step is cut to one bounded line', () => {
    const dir = started();
    const before = snapshot(dir);
    const session = autopilot(dir, '--session', 's'.repeat(70_000), 'next', '--json');
    expect(session.code).toBe(2);
    expect(session.json<{ error: { message: string } }>().error.message).toContain('is not a session name');
    const note = autopilot(dir, 'checkpoint', '--note', 'n'.repeat(70_000), '--json');
    expect(note.code).toBe(2);
    expect(note.json<{ error: { message: string } }>().error.message).toMatch(/--note: a note of 70000 characters is too long/);
    expect(snapshot(dir)).toEqual(before);
    // A sub-step is recorded in a step `next` began (issue 29 point 7).
    expect(autopilot(dir, 'next').code).toBe(0);
    expect(autopilot(dir, 'substep', 'x'.repeat(70_000)).code).toBe(0);
    const line = readFileSync(join(dir, '_docs/_autopilot/journal.jsonl'), 'utf8').trimEnd().split('\n').at(-1)!;
    expect(line.length).toBeLessThan(65_536);
    expect(JSON.parse(line)).toMatchObject({ event: 'substep' });
  });

  it('a --docs of 300 characters is exit 2, not a crash', () => {
    const run = autopilot(tempRepo(), '--docs', 'd'.repeat(300), 'status');
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('too long');
  });

  it('a reader that goes away (`status | head -c 10`) ends the command quietly with its own exit code', async () => {
    const dir = started();
    const code = await new Promise<number | null>((resolve) => {
      const child = spawn(process.execPath, [BIN, '-C', dir, 'log'], { stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.stdout.once('data', () => child.stdout.destroy());
      child.on('close', (c) => {
        expect(stderr).not.toContain('EPIPE');
        resolve(c);
      });
    });
    expect(code).toBe(0);
  });

  it('an answer of 1 MB through a pipe read slowly arrives whole; a reader that leaves after 64 KB ends it quietly, exit 0', async () => {
    const dir = started();
    const journalFile = join(dir, '_docs/_autopilot/journal.jsonl');
    const last = JSON.parse(readFileSync(journalFile, 'utf8').trimEnd().split('\n').at(-1)!) as { seq: number };
    const lines = Array.from({ length: 100 }, (_, i) =>
      JSON.stringify({ ...last, prev: undefined, seq: last.seq + i + 1, event: 'substep', sub_step: `${i} ${'x'.repeat(10_000)}` }),
    );
    writeFileSync(journalFile, `${readFileSync(journalFile, 'utf8')}${lines.join('\n')}\n`);
    const read = (leaveAfter?: number) =>
      new Promise<{ code: number | null; bytes: number; stderr: string; text: string }>((resolve) => {
        const child = spawn(process.execPath, [BIN, '-C', dir, 'log', '--json'], { stdio: ['ignore', 'pipe', 'pipe'] });
        let bytes = 0;
        let stderr = '';
        const chunks: Buffer[] = [];
        child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
        child.stdout.on('data', (d: Buffer) => {
          bytes += d.length;
          chunks.push(d);
          if (leaveAfter !== undefined && bytes >= leaveAfter) child.stdout.destroy();
          else {
            // A slow reader: the pipe fills while it sleeps.
            child.stdout.pause();
            setTimeout(() => child.stdout.resume(), 5);
          }
        });
        child.on('close', (code) => resolve({ code, bytes, stderr, text: Buffer.concat(chunks).toString() }));
      });
    const whole = await read();
    expect(whole).toMatchObject({ code: 0, stderr: '' });
    expect(whole.bytes).toBeGreaterThan(1_000_000);
    const events = (JSON.parse(whole.text) as { events: { seq: number }[] }).events;
    expect(events.at(-1)!.seq).toBe(last.seq + 100);
    const left = await read(65_536);
    expect(left).toMatchObject({ code: 0, stderr: '' });
    expect(left.bytes).toBeLessThan(whole.bytes);
  });
});
