#!/usr/bin/env node
/**
 * Lists every function, method and arrow in src/ longer than a limit
 * (80 lines unless given), longest first, with its file, line and length.
 * A report, not a check: it always exits 0.
 *
 *   node scripts/long-functions.mjs [limit] [folder]
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

const limit = Number(process.argv[2] ?? 80);
const root = process.argv[3] ?? 'src';

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
for (const f of found) console.log(`${String(f.lines).padStart(4)}  ${f.path}:${f.start}  ${f.name}`);
console.log(`${found.length} function(s) over ${limit} lines in ${root}/`);
