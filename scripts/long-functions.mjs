#!/usr/bin/env node
/**
 * Lists every function, method and arrow in src/ longer than a limit
 * (80 lines unless given), longest first, with its file, line and length.
 * A report: it exits 0. With `--check` (run by `npm run lint`), a rule: it
 * says nothing when none is over, else lists them and exits 1.
 *
 *   node scripts/long-functions.mjs [--check] [limit] [folder]
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

const args = process.argv.slice(2);
const check = args.includes('--check');
const [limitArg, rootArg] = args.filter((a) => a !== '--check');
const limit = Number(limitArg ?? 80);
const root = rootArg ?? 'src';

/** Every .ts file under a folder, in name order. */
function sourceFiles(folder) {
  return readdirSync(folder)
    .sort()
    .flatMap((name) => {
      const path = join(folder, name);
      if (statSync(path).isDirectory()) return sourceFiles(path);
      return path.endsWith('.ts') ? [path] : [];
    });
}

/** The name a reader would search for: declared, or the variable or property it is bound to. */
function nameOf(node) {
  if (node.name !== undefined) return node.name.getText();
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) return parent.name.getText();
  if (ts.isCallExpression(parent)) return `(argument of ${parent.expression.getText().slice(0, 40)})`;
  return '(anonymous)';
}

const found = [];
for (const path of sourceFiles(root)) {
  const text = readFileSync(path, 'utf8');
  const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const visit = (node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body !== undefined) {
      const start = file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1;
      const end = file.getLineAndCharacterOfPosition(node.getEnd()).line + 1;
      const lines = end - start + 1;
      if (lines > limit) found.push({ path: relative('.', path), start, lines, name: nameOf(node) });
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
}
found.sort((a, b) => b.lines - a.lines || a.path.localeCompare(b.path));
if (check && found.length === 0) process.exit(0);
const say = check ? console.error : console.log;
for (const f of found) say(`${String(f.lines).padStart(4)}  ${f.path}:${f.start}  ${f.name}`);
say(`${found.length} function(s) over ${limit} lines in ${root}/${check ? ': split each into named steps (docs/architecture.md)' : ''}`);
if (check) process.exit(1);
