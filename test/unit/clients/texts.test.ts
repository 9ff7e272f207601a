/**
 * The texts an agent reads (`/autopilot` for Claude Code and Cursor, the
 * section of AGENTS.md) hold one table of what can happen: every exit code
 * and every error code `errors.ts` defines has its row, with the exit the
 * command line gives it and the code an MCP tool error starts with, so the
 * texts cannot drift from what the code does.
 */
import { describe, expect, it } from 'vitest';
import { agentsSection, autopilotCommand, claudeCommand, OUTCOMES } from '../../../src/clients/instructions.js';
import { exitCodeOf, type Outcome } from '../../../src/engine/transitions.js';
import { ERROR_CODES, ERROR_EXIT, EXIT, exitCodeOfError, GitFailed, HeldError, InputError, LeaseMoved, type ErrorCode } from '../../../src/errors.js';

/** The table's rows as an agent reads them: what, exit, the MCP column's codes (none: a result), what to do. */
function rows(text: string): { what: string; exit: number; codes: string[]; result: boolean; does: string }[] {
  const lines = text.split('\n').filter((l) => l.startsWith('| '));
  expect(lines[0]).toBe('| what happened | exit | MCP | you |');
  return lines.slice(1).map((line) => {
    const [what, exit, mcp, does] = line.slice(2, -2).split(' | ');
    return { what: what!, exit: Number(exit), codes: [...mcp!.matchAll(/`(\w+)`/g)].map((m) => m[1]!), result: mcp === 'result', does: does! };
  });
}

/** An error of each code, as the commands throw it (`refused` is a step's answer, not a throw). */
const thrown: Record<Exclude<ErrorCode, 'refused'>, unknown> = {
  bad_input: new InputError({ message: 'x' }),
  outside_repository: new InputError({ message: 'x' }, undefined, 'outside_repository'),
  guard_off: new InputError({ message: 'x' }, undefined, 'guard_off'),
  disk_full: Object.assign(new Error('no space'), { code: 'ENOSPC' }),
  held: new HeldError({ message: 'held', hint: 'ask the person' }),
  lease_moved: new LeaseMoved('origin'),
  git_failed: new GitFailed('git refused', 'see git'),
  internal: new Error('a bug'),
};

describe('the table of outcomes in the texts an agent reads', () => {
  const texts = { '/autopilot (Cursor)': autopilotCommand(), '/autopilot (Claude Code)': claudeCommand(), 'AGENTS.md': agentsSection() };

  it('is the same 7 rows in all 3 texts', () => {
    for (const [name, text] of Object.entries(texts)) expect(rows(text), name).toEqual(rows(agentsSection()));
    expect(rows(agentsSection())).toHaveLength(OUTCOMES.length);
    expect(OUTCOMES).toHaveLength(7);
  });

  it('holds every exit code (0 to 4) in a row, and every error code in exactly one row, beside the exit it gets', () => {
    const table = rows(agentsSection());
    for (const exit of Object.values(EXIT))
      expect(
        table.some((r) => r.exit === exit),
        `exit ${exit}`,
      ).toBe(true);
    for (const code of ERROR_CODES) {
      const named = table.filter((r) => r.codes.includes(code));
      expect(named, code).toHaveLength(1);
      expect(named[0]!.exit, code).toBe(ERROR_EXIT[code]);
    }
    // No code in the texts that errors.ts does not define.
    expect(table.flatMap((r) => r.codes).sort()).toEqual([...ERROR_CODES].sort());
  });

  it('gives each thrown error the exit its row says, and a refused step exit 2', () => {
    for (const [code, error] of Object.entries(thrown)) expect(exitCodeOfError(error), code).toBe(ERROR_EXIT[code as ErrorCode]);
    const refused: Outcome = { kind: 'refused', problem: { message: 'x' } } as Outcome;
    expect(exitCodeOf(refused)).toBe(ERROR_EXIT.refused);
  });

  it('says a result (no isError) exactly where the command line exits 0 or 3, and what the agent does at the end of the flow and at a stop', () => {
    const table = rows(agentsSection());
    for (const row of table) expect(row.result, row.what).toBe(row.exit === EXIT.ok || row.exit === EXIT.stoppedForPerson);
    for (const kind of ['decision', 'boundary', 'failed', 'fork'] as const) expect(exitCodeOf({ kind } as Outcome)).toBe(EXIT.stoppedForPerson);
    expect(exitCodeOf({ kind: 'complete' })).toBe(EXIT.ok);
    expect(table.find((r) => r.what.includes('complete'))).toMatchObject({ exit: 0, does: expect.stringContaining('tell the person') });
    expect(table.find((r) => r.exit === 3)!.does).toContain('boundary.summary.fix');
    expect(table.find((r) => r.exit === 4)!.does).toContain('ask the person');
  });

  it('tells the agent that autopilot commits its own files, and names the answer keys next returns (write, resume, have)', () => {
    for (const [name, text] of Object.entries(texts)) {
      expect(text, name).toContain('autopilot commits its own files at each step: never `git add` or commit `_docs/`');
      for (const key of ['`write`', '`resume`', '`have`', '`done_when`', '`skill`']) expect(text, name).toContain(key);
    }
  });
});
