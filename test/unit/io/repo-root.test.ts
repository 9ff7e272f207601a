/** Where a repository's root is found: the walk up, and where it stops (real folders); and what lies inside it. */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, isAbsolute, join, relative } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { isInside, openRepo } from '../../../src/io/repo.js';

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** outer/_docs/ holding a pointer (a run) and outer/inner/deep/, nothing else. */
function nested(): { outer: string; deep: string } {
  const outer = realpathSync(mkdtempSync(join(tmpdir(), 'autopilot-root-')));
  made.push(outer);
  mkdirSync(join(outer, '_docs'));
  writeFileSync(join(outer, '_docs', '_autopilot_state.md'), '# Autopilot State\n');
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

/** A folder of the test's own, with `marks` (paths relative to it: a folder when it ends in `/`, else a file) and a/b/ below it. */
function tree(...marks: string[]): { top: string; below: string } {
  const top = realpathSync(mkdtempSync(join(tmpdir(), 'autopilot-root-')));
  made.push(top);
  for (const mark of marks) {
    mkdirSync(join(top, mark.endsWith('/') ? mark : dirname(mark)), { recursive: true });
    if (!mark.endsWith('/')) writeFileSync(join(top, mark), '');
  }
  const below = join(top, 'a', 'b');
  mkdirSync(below, { recursive: true });
  return { top, below };
}

describe('the repository root', () => {
  it('is the nearest folder above that holds a run (a pointer)', () => {
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

  it('outside git, 5 folders above: a bare _docs/ is no run (the start stands); .autopilot/, a pointer, a journal and .git each are', () => {
    const rootOf = (...marks: string[]) => {
      const { top, below } = tree(...marks);
      const root = withCeiling(dirname(top), () => openRepo({ dir: below }).root);
      return root === top ? 'above' : root === below ? 'start' : root;
    };
    expect(rootOf('_docs/')).toBe('start');
    expect(rootOf('.autopilot/')).toBe('above');
    expect(rootOf('_docs/_autopilot_state.md')).toBe('above');
    expect(rootOf('_docs/_autopilot/journal.jsonl')).toBe('above');
    expect(rootOf('.git/')).toBe('above');
  });

  it('inside a git work tree, a bare _docs/ above is the root, as before; the start folder with a bare _docs/ is its own root', () => {
    const { top, below } = tree('.git/', 'a/_docs/', 'a/b/_docs/');
    expect(withCeiling(dirname(top), () => openRepo({ dir: below }).root)).toBe(below);
    expect(withCeiling(dirname(top), () => openRepo({ dir: join(below, '..') }).root)).toBe(join(top, 'a'));
    const outside = tree('a/b/_docs/');
    expect(withCeiling(dirname(outside.top), () => openRepo({ dir: outside.below }).root)).toBe(outside.below);
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

  // 10,000 pairs find, 20 seeds of 20, the bug this was written for (any name starting `..` taken for a climb) and
  // each slip in the quick paths: a plain path's test that misses `//` or `/./`, a prefix without the separator
  // (`/repo-other`), a prefix taken with a `..` in it; 3,000 already did.
  it('answers as path.relative does on 10,000 pairs of paths with `.`, `..`, empty and look-alike segments', () => {
    fc.assert(
      fc.property(path, path, fc.boolean(), (root, tail, nested) => {
        const target = nested ? `${root}${tail}` : tail;
        expect(isInside(root, target)).toBe(byRelative(root, target));
      }),
      { numRuns: 10_000 },
    );
  });
});
