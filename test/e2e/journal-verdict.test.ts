/**
 * The chain's verdict (`src/io/journal-verdict.ts`): a command that only reads
 * takes the chain hashes of the journal's last lines from it while the
 * journal's identity (device, inode, size, modification and change times) is
 * the one a writer recorded. A change that keeps the size and puts the
 * modification time back still moves the change time (or the inode), so the
 * lines are hashed again: the next line appended names the edited line, and
 * the chain stays whole.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, renameSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { autopilot, exampleCopy } from '../helpers/cli.js';

const JOURNAL = join('_docs', '_autopilot', 'journal.jsonl');
/** A whole second in the past: a modification time a test can put back to the nanosecond. */
const ROUND = new Date('2026-01-01T00:00:00Z');

const chainHash = (line: string) => createHash('sha1').update(line).digest('hex').slice(0, 8);
const lines = (dir: string) => readFileSync(join(dir, JOURNAL), 'utf8').trimEnd().split('\n');

/** A copy of the example whose journal has a round modification time and a verdict recorded for it (by two `next`). */
function withVerdict(): string {
  const dir = exampleCopy();
  utimesSync(join(dir, JOURNAL), ROUND, ROUND);
  for (let i = 0; i < 2; i++) expect(autopilot(dir, 'next', '--json').code).toBe(0);
  expect(existsSync(join(dir, '_docs', '_autopilot', 'cache', 'journal-chain.json'))).toBe(true);
  return dir;
}

/** The last line's text with one digit of its time changed: the same size, another chain hash. */
function edited(text: string): string {
  const out = text.replace(/("at":"\d{4}-\d\d-\d\dT\d\d:\d\d:)(\d)/, (_m, head: string, d: string) => `${head}${(Number(d) + 1) % 10}`);
  expect(out).not.toBe(text);
  expect(out.length).toBe(text.length);
  return out;
}

const editInPlace = (dir: string, text: string) => writeFileSync(join(dir, JOURNAL), text);
const replaceByCopy = (dir: string, text: string) => {
  const copy = join(dir, '_docs', '_autopilot', 'journal.copy');
  writeFileSync(copy, text);
  utimesSync(copy, ROUND, ROUND);
  renameSync(copy, join(dir, JOURNAL));
};

it('a journal edited by hand keeping its size and modification time is hashed again: 2 edits (in place, a same-size copy renamed over), 2 appends naming the edited line, 0 breaks', () => {
  for (const [how, change] of [
    ['in place', editInPlace],
    ['a copy renamed over', replaceByCopy],
  ] as const) {
    const dir = withVerdict();
    const before = lines(dir);
    const last = edited(before.at(-1)!);
    const text = `${[...before.slice(0, -1), last].join('\n')}\n`;
    expect(text.length).toBe(readFileSync(join(dir, JOURNAL), 'utf8').length);
    change(dir, text);
    utimesSync(join(dir, JOURNAL), ROUND, ROUND);
    const appended = autopilot(dir, 'substep', '5 — Review', '--json');
    expect(appended.code, `${how}: ${appended.stderr}`).toBe(0);
    const after = lines(dir);
    expect(after.length, how).toBeGreaterThan(before.length);
    expect(JSON.parse(after[before.length]!).prev, `${how}: the appended line names the edited line`).toBe(chainHash(last));
    const check = autopilot(dir, 'check');
    expect(check.stdout, how).toMatch(/no problems/);
  }
});
