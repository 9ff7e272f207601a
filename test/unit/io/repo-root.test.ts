/** Where a repository's root is found: the walk up, and where it stops (real folders); and what lies inside it. */
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, isAbsolute, join, relative } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { isInside, openRepo } from '../../../src/io/repo.js';

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** outer/_docs/ and outer/inner/deep/, nothing else. */
function nested(): { outer: string; deep: string } {
  const outer = realpathSync(mkdtempSync(join(tmpdir(), 'autopilot-root-')));
  made.push(outer);
  mkdirSync(join(outer, '_docs'));
  const deep = join(outer, 'inner', 'deep');
  mkdirSync(deep, { recursive: true });
  return { outer, deep };
}

function withCeiling<T>(value: string | undefined, run: () => T): T {
  const was = process.env.GIT_CEILING_DIRECTORIES;
  if (value === undefined) delete process.env.GIT_CEILING_DIRECTORIES;
  else process.env.GIT_CEILING_DIRECTORIES = value;
  try {
    return run();
  } finally {
    if (was === undefined) delete process.env.GIT_CEILING_DIRECTORIES;
    else process.env.GIT_CEILING_DIRECTORIES = was;
  }
}

describe('the repository root', () => {
  it('is the nearest folder above with the docs folder', () => {
    const { outer, deep } = nested();
    expect(withCeiling(undefined, () => openRepo({ dir: deep }).root)).toBe(outer);
  });

  it('is never looked for in or above a folder GIT_CEILING_DIRECTORIES names, as git does: the start folder stands', () => {
    const { outer, deep } = nested();
    const inner = join(outer, 'inner');
    expect(withCeiling(inner, () => openRepo({ dir: deep }).root)).toBe(deep);
    expect(withCeiling(['/nowhere', outer].join(delimiter), () => openRepo({ dir: deep }).root)).toBe(deep);
    // A relative entry is ignored, as git ignores it.
    expect(withCeiling('inner', () => openRepo({ dir: deep }).root)).toBe(outer);
  });
});

describe('isInside', () => {
  /** By path.relative alone: a relative path that climbs (`..`, `../…`) or is absolute leaves the root. */
  const byRelative = (root: string, target: string) => {
    const rel = relative(root, target);
    return rel === '' || (rel !== '..' && !rel.startsWith('../') && !isAbsolute(rel));
  };
  const segment = fc.constantFrom('a', 'b', 'ab', '..', '.', '', '..a', 'a..', '_docs');
  const path = fc.array(segment, { maxLength: 6 }).map((parts) => `/${parts.join('/')}`);

  it('takes a name that starts with two dots for a name, not a climb', () => {
    expect(isInside('/repo', '/repo/..notes.md')).toBe(true);
    expect(isInside('/repo', '/repo/../notes.md')).toBe(false);
    expect(isInside('/repo', '/repo-other/notes.md')).toBe(false);
  });

  it('answers as path.relative does on 100,000 pairs of paths with `.`, `..`, empty and look-alike segments', () => {
    fc.assert(
      fc.property(path, path, fc.boolean(), (root, tail, nested) => {
        const target = nested ? `${root}${tail}` : tail;
        expect(isInside(root, target)).toBe(byRelative(root, target));
      }),
      { numRuns: 100_000 },
    );
  });
});
