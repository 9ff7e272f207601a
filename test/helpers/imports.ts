/** The source tree's import graph, read as text: for the tests that keep heavy parts off the CLI's start-up. */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { ROOT } from './engine.js';

export const SRC = join(ROOT, 'src');

/** Every `.ts` file below `dir`. */
export function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? sources(path) : entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** What a file loads when it is loaded: its static imports and re-exports, type-only ones left out (they are erased). */
export function staticImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const found: string[] = [];
  for (const match of text.matchAll(/^\s*(import|export)\s+(type\s+)?([^'";]*?\s+from\s+)?['"]([^'"]+)['"]/gm)) {
    if (match[2]) continue;
    const specifier = match[4]!;
    found.push(specifier.startsWith('.') ? relative(ROOT, resolve(dirname(file), specifier.replace(/\.js$/, '.ts'))) : specifier);
  }
  return found;
}

/** `from → to` for every static import of a file outside `inside` whose target matches `target`. */
export function staticEdgesInto(inside: string, target: RegExp): string[] {
  return sources(SRC)
    .filter((file) => !file.startsWith(inside + '/'))
    .flatMap((file) => staticImports(file).map((to) => `${relative(ROOT, file)} → ${to}`))
    .filter((edge) => target.test(edge));
}

export type ImportKind = 'static' | 'type' | 'dynamic';

/** Every import of a file, with its kind: loaded with the file, erased (type-only), or loaded on demand (`await import`). */
export function importsOf(file: string): { target: string; kind: ImportKind }[] {
  const text = readFileSync(file, 'utf8');
  const resolveTarget = (specifier: string) =>
    specifier.startsWith('.') ? relative(ROOT, resolve(dirname(file), specifier.replace(/\.js$/, '.ts'))) : specifier;
  const found: { target: string; kind: ImportKind }[] = [];
  for (const match of text.matchAll(/^\s*(import|export)\s+(type\s+)?([^'";]*?\s+from\s+)?['"]([^'"]+)['"]/gm)) {
    // Only `import type` is erased: with verbatimModuleSyntax, `import { type A } from` still loads the module.
    found.push({ target: resolveTarget(match[4]!), kind: match[2] !== undefined ? 'type' : 'static' });
  }
  for (const match of text.matchAll(/import\(\s*['"]([^'"]+)['"]\s*\)/g)) found.push({ target: resolveTarget(match[1]!), kind: 'dynamic' });
  return found;
}
