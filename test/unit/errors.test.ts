/**
 * One map from error to exit code and MCP code (issue 31, point 5): what was
 * thrown carries its code, `ERROR_EXIT` gives the exit, and the JSON error
 * (the MCP tool error starts with its code) says the same code. Errors are
 * told apart by brands, not by their class object or name: an error made by
 * another copy of the module — as each lazy bundle of the CLI holds one — is
 * known for what it is.
 */
import { describe, expect, it, vi } from 'vitest';
import {
  CodedError,
  ERROR_CODES,
  ERROR_EXIT,
  EXIT,
  errorCodeOf,
  errorJson,
  exitCodeOfError,
  GitFailed,
  HeldError,
  InputError,
  isMcpResult,
  LeaseMoved,
  type ErrorCode,
} from '../../src/errors.js';
import { RemoteNotAnswering } from '../../src/git/errors.js';
import { errorText } from '../../src/render/text.js';

type Errors = typeof import('../../src/errors.js');

/** An error of each code, made with the classes of `errors`: the one copy, or another. */
function thrown(errors: Errors): Record<ErrorCode, unknown> {
  return {
    bad_input: new errors.InputError({ message: 'x' }),
    refused: new errors.InputError({ message: 'x' }, undefined, 'refused'),
    outside_repository: new errors.InputError({ message: 'x' }, undefined, 'outside_repository'),
    guard_off: new errors.InputError({ message: 'x' }, undefined, 'guard_off'),
    disk_full: Object.assign(new Error('no space'), { code: 'ENOSPC' }),
    held: new errors.HeldError({ message: 'held', hint: 'ask the person' }),
    lease_moved: new errors.LeaseMoved('origin'),
    git_failed: new errors.GitFailed('git refused', 'see git'),
    internal: new Error('a bug'),
  };
}

/** A second copy of a module, as a lazy bundle holds its own. */
async function anotherCopy<T>(load: () => Promise<T>): Promise<T> {
  vi.resetModules();
  return load();
}

describe('one map from error to exit code and MCP code', () => {
  it('each of the 9 error codes: what was thrown carries it, exits as ERROR_EXIT says, and the JSON error (and so the MCP tool error) says it', () => {
    const errors = thrown({ InputError, HeldError, LeaseMoved, GitFailed } as Errors);
    expect(Object.keys(errors).sort()).toEqual([...ERROR_CODES].sort());
    for (const code of ERROR_CODES) {
      expect(errorCodeOf(errors[code]), code).toBe(code);
      expect(exitCodeOfError(errors[code]), code).toBe(ERROR_EXIT[code]);
      expect(errorJson(errors[code]).error.code, code).toBe(code);
    }
  });

  it('only exits 0 and 3 are MCP results; 1, 2 and 4 are tool errors', () => {
    expect(Object.values(EXIT).filter(isMcpResult)).toEqual([EXIT.ok, EXIT.stoppedForPerson]);
  });

  it("the remote lease's try-again is typed: lease_moved, exit 4, its message and hint in the JSON and the text", () => {
    const moved = new LeaseMoved('origin');
    expect(exitCodeOfError(moved)).toBe(EXIT.heldByAnotherSession);
    expect(errorJson(moved)).toEqual({
      error: {
        code: 'lease_moved',
        message: expect.stringContaining('the lease on origin kept changing'),
        hint: expect.stringContaining('Run the command again'),
      },
    });
    expect(errorText(moved)).not.toContain('internal error');
    expect(errorText(moved)).toContain('Run the command again');
  });

  it('an error made by another copy of errors.ts (a lazy bundle) is known: 9 codes, 4 classes, the same exit and code', async () => {
    const copy = await anotherCopy(() => import('../../src/errors.js'));
    expect(copy.InputError).not.toBe(InputError);
    const errors = thrown(copy);
    for (const code of ERROR_CODES) {
      expect(exitCodeOfError(errors[code]), code).toBe(ERROR_EXIT[code]);
      expect(errorJson(errors[code]).error.code, code).toBe(code);
    }
    expect(errors.bad_input).toBeInstanceOf(InputError);
    expect(errors.held).toBeInstanceOf(HeldError);
    expect(errors.lease_moved).toBeInstanceOf(LeaseMoved);
    expect(errors.git_failed).toBeInstanceOf(GitFailed);
    for (const code of ['bad_input', 'held', 'lease_moved', 'git_failed'] as const) expect(errors[code], code).toBeInstanceOf(CodedError);
    // A brand says which class, not only that it is one of autopilot's.
    expect(errors.held).not.toBeInstanceOf(InputError);
    expect(errors.lease_moved).not.toBeInstanceOf(HeldError);
    expect(new Error('x')).not.toBeInstanceOf(CodedError);
  });

  it("git's RemoteNotAnswering from another copy of git/errors.ts is known by its brand, not its name", async () => {
    const copy = await anotherCopy(() => import('../../src/git/errors.js'));
    const timedOut = new copy.GitTimedOut(['ls-remote', 'origin'], 1000, '', '');
    const silent = new copy.RemoteNotAnswering('origin', timedOut);
    expect(copy.RemoteNotAnswering).not.toBe(RemoteNotAnswering);
    expect(silent).toBeInstanceOf(RemoteNotAnswering);
    // A name is not a brand.
    expect(Object.assign(new Error('x'), { name: 'RemoteNotAnswering' })).not.toBeInstanceOf(RemoteNotAnswering);
  });
});
