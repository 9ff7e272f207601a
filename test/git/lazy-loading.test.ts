/**
 * The CLI's start-up time: `status` on a healthy repository must not load
 * the git layer. So nothing outside src/git may import it other than with
 * `await import(…)`, and src/git itself leans on no package (git runs through
 * node:child_process) and on nothing heavier than the pure error and position
 * types and the text escaping of formats/bidi.ts.
 */
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SRC, sources, staticEdgesInto, staticImports } from '../helpers/imports.js';

const GIT = join(SRC, 'git');

describe('the git layer is loaded lazily', () => {
  it('no file outside src/git imports src/git statically', () => {
    expect(staticEdgesInto(GIT, /→ src\/git\//)).toEqual([]);
  });

  it('src/git imports no package, and nothing but the pure errors, limits, blob ids (hash), position types, text escaping, the remote lease format and the process probe from outside', () => {
    const edges = sources(GIT).flatMap((file) => staticImports(file).map((target) => ({ from: relative(GIT, file), target })));
    const outside = new Set(edges.map((e) => e.target).filter((t) => !t.startsWith('src/git/') && !t.startsWith('node:')));
    expect([...outside].sort()).toEqual([
      'src/errors.ts',
      'src/formats/bidi.ts',
      'src/formats/lease.ts',
      'src/formats/pointer/position.ts',
      'src/hash.ts',
      'src/limits.ts',
      'src/processes.ts',
    ]);
  });
});
