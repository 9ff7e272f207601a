/**
 * The CLI's start-up time: `status` on a healthy repository must not load
 * simple-git. So nothing outside src/git may import it (or src/git) other
 * than with `await import(…)`, and src/git itself leans on nothing heavier
 * than the pure error and position types.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/engine.js';

const SRC = join(ROOT, 'src');
const GIT = join(SRC, 'git');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? sources(path) : entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** What a file loads when it is loaded: its static imports and re-exports, type-only ones left out (they are erased). */
function staticImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const found: string[] = [];
  for (const match of text.matchAll(/^\s*(import|export)\s+(type\s+)?([^'";]*?\s+from\s+)?['"]([^'"]+)['"]/gm)) {
    if (match[2]) continue;
    const specifier = match[4]!;
    found.push(specifier.startsWith('.') ? relative(ROOT, resolve(dirname(file), specifier.replace(/\.js$/, '.ts'))) : specifier);
  }
  return found;
}

describe('the git layer is loaded lazily', () => {
  it('no file outside src/git imports simple-git or src/git statically', () => {
    const offenders = sources(SRC)
      .filter((file) => !file.startsWith(GIT + '/'))
      .flatMap((file) => staticImports(file).map((target) => `${relative(ROOT, file)} → ${target}`))
      .filter((edge) => /→ (simple-git|src\/git\/)/.test(edge));
    expect(offenders).toEqual([]);
  });

  it('within src/git, only run.ts loads simple-git, and nothing but the pure errors and position types is used from outside', () => {
    const edges = sources(GIT).flatMap((file) => staticImports(file).map((target) => ({ from: relative(GIT, file), target })));
    expect(edges.filter((e) => e.target === 'simple-git').map((e) => e.from)).toEqual(['run.ts']);
    const outside = new Set(edges.map((e) => e.target).filter((t) => !t.startsWith('src/git/') && !t.startsWith('node:') && t !== 'simple-git'));
    expect([...outside].sort()).toEqual(['src/errors.ts', 'src/state/position.ts']);
  });
});
