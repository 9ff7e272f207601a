/** The lock as `status`, `check` and the hook read it (`io/lock-peek.ts`): what blocks step commands and who clears it, in real files. */
import { chmodSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { lockInTheWay } from '../../../src/io/lock-peek.js';
import { thisMachine } from '../../../src/io/machine.js';

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const NOW = Date.now();
/** A lock file with `text`, its time `ageMs` before NOW; the folder it is in. */
function lockFile(text: string, ageMs: number): { file: string; root: string } {
  const root = mkdtempSync(join(tmpdir(), 'autopilot-lock-peek-'));
  made.push(root);
  const file = join(root, 'lock');
  writeFileSync(file, text);
  const at = new Date(NOW - ageMs);
  utimesSync(file, at, at);
  return { file, root };
}
const holder = (fields: Record<string, unknown>) =>
  JSON.stringify({ pid: 4242, host: 'elsewhere', machine: 'another', session: 'a', at: 'then', nonce: 'n', ...fields });
const peek = ({ file, root }: { file: string; root: string }) => lockInTheWay(file, root, NOW);
const MINUTE = 60_000;

describe('lockInTheWay', () => {
  it('7 locks: 3 in the way (garbage, another machine’s, a live one of this machine held a minute), 4 not (none, a fresh one, garbage a moment old, a gone holder)', () => {
    const inTheWay = [
      peek(lockFile('garbage', MINUTE)),
      peek(lockFile(holder({}), MINUTE)),
      peek(lockFile(holder({ pid: process.pid, machine: thisMachine().machine }), MINUTE)),
    ];
    expect(inTheWay).toEqual([
      expect.stringMatching(/names no holder.*refuses \(exit 4\).*a person removes it \(`rm lock`\) or adds `--take-over`/),
      expect.stringMatching(/another machine's command \(pid 4242 on elsewhere.*never broken by autopilot.*`--take-over`/),
      expect.stringMatching(new RegExp(`still runs on this machine \\(pid ${process.pid} .*kill -CONT ${process.pid}`)),
    ]);
    const root = mkdtempSync(join(tmpdir(), 'autopilot-lock-peek-'));
    made.push(root);
    const notInTheWay = [
      lockInTheWay(join(root, 'lock'), root, NOW),
      peek(lockFile(holder({}), 100)),
      peek(lockFile('', 100)),
      peek(lockFile(holder({ pid: 2 ** 22 + 17, machine: thisMachine().machine }), MINUTE)),
    ];
    expect(notInTheWay).toEqual([undefined, undefined, undefined, undefined]);
  });

  it.skipIf(process.getuid?.() === 0)('a lock this user cannot read: in the way, its owner named, who removes it', () => {
    const lock = lockFile(holder({}), 0);
    chmodSync(lock.file, 0o000);
    expect(peek(lock)).toMatch(/cannot be read by uid \d+.*\(EACCES; it belongs to uid \d+.*that user \(or root\) removes it/);
  });
});
