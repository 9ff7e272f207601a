/**
 * The CLI's start-up time: `status` on a healthy repository must not load
 * simple-git. So nothing outside src/git may import it (or src/git) other
 * than with `await import(…)`, and src/git itself leans on nothing heavier
 * than the pure error and position types and the text escaping of formats/bidi.ts.
 */
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SRC, sources, staticEdgesInto, staticImports } from '../helpers/imports.js';

const GIT = join(SRC, 'git');

describe('the git layer is loaded lazily', () => {
  it('no file outside src/git imports simple-git or src/git statically', () => {
    expect(staticEdgesInto(GIT, /→ (simple-git|src\/git\/)/)).toEqual([]);
  });

  it('within src/git, only run.ts loads simple-git, and nothing but the pure errors, position types and text escaping is used from outside', () => {
    const edges = sources(GIT).flatMap((file) => staticImports(file).map((target) => ({ from: relative(GIT, file), target })));
    expect(edges.filter((e) => e.target === 'simple-git').map((e) => e.from)).toEqual(['run.ts']);
    const outside = new Set(edges.map((e) => e.target).filter((t) => !t.startsWith('src/git/') && !t.startsWith('node:') && t !== 'simple-git'));
    expect([...outside].sort()).toEqual(['src/errors.ts', 'src/formats/bidi.ts', 'src/formats/pointer/position.ts']);
  });
});
