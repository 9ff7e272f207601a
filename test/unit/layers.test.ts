/**
 * The layers of docs/architecture.md, kept: the table there says which
 * folders each folder may import; this test reads it and fails on any other
 * edge, on a cycle between folders, on a cycle between files, and on a heavy
 * package reached from the command line's start-up.
 */
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/engine.js';
import { importsOf, sources, SRC, type ImportKind } from '../helpers/imports.js';

interface Rule {
  allowed: Set<string>;
  /** Folders it may import only as types or with `await import`. */
  lazy: Set<string>;
}

/** A table of docs/architecture.md under its heading (`## Layers`, `## The rooms of app/`): `| \`layer\` | \`a\` \`b\` (lazy) |`. */
function layerTable(heading = '## Layers'): Map<string, Rule> {
  const doc = readFileSync(join(ROOT, 'docs', 'architecture.md'), 'utf8');
  const at = doc.indexOf(`\n${heading}\n`);
  if (at < 0) throw new Error(`docs/architecture.md has no section ${heading}`);
  const section = doc.slice(at, doc.indexOf('\n## ', at + 1));
  const rules = new Map<string, Rule>();
  for (const line of section.split('\n')) {
    const row = /^\| `(\w+)` \|(.*)\|$/.exec(line);
    if (!row) continue;
    const rule: Rule = { allowed: new Set(), lazy: new Set() };
    for (const m of row[2]!.matchAll(/`(\w+)`( \(lazy\))?/g)) {
      rule.allowed.add(m[1]!);
      if (m[2]) rule.lazy.add(m[1]!);
    }
    rules.set(row[1]!, rule);
  }
  return rules;
}

/** A source file's layer: its folder under src/, or its name for a file at the top. */
function layerOf(path: string): string | undefined {
  if (!path.startsWith('src/')) return undefined;
  const parts = path.slice(4).split('/');
  return parts.length === 1 ? parts[0]!.replace(/\.ts$/, '') : parts[0]!;
}

const files = sources(SRC).map((file) => relative(ROOT, file));
const edges = files.flatMap((from) => importsOf(join(ROOT, from)).map(({ target, kind }) => ({ from, target, kind })));

describe('the layers of docs/architecture.md', () => {
  const table = layerTable();

  it('name every folder of src/', () => {
    expect([...new Set(files.map((f) => layerOf(f)!))].filter((l) => !table.has(l))).toEqual([]);
    expect(table.size).toBeGreaterThan(10);
  });

  it('hold: no import crosses to a layer its row does not name, and a lazy one is only a type or an `await import`', () => {
    const wrong: string[] = [];
    for (const { from, target, kind } of edges) {
      const a = layerOf(from)!;
      const b = layerOf(target);
      if (!b || a === b) continue;
      const rule = table.get(a)!;
      if (!rule.allowed.has(b)) wrong.push(`${from} → ${target} (${a} may not import ${b})`);
      else if (rule.lazy.has(b) && kind === 'static') wrong.push(`${from} → ${target} (${a} imports ${b} only lazily)`);
    }
    expect(wrong).toEqual([]);
  });

  it('form no cycle between folders', () => {
    const graph = new Map<string, Set<string>>();
    for (const { from, target } of edges) {
      const a = layerOf(from)!;
      const b = layerOf(target);
      if (b && a !== b) (graph.get(a) ?? graph.set(a, new Set()).get(a)!).add(b);
    }
    expect(cycles(graph)).toEqual([]);
  });

  it('form no cycle between files, counting every kind of import', () => {
    const graph = new Map<string, Set<string>>();
    for (const { from, target } of edges) if (target.startsWith('src/')) (graph.get(from) ?? graph.set(from, new Set()).get(from)!).add(target);
    expect(cycles(graph)).toEqual([]);
  });

  it("keep zod, the MCP SDK, yaml and remark off the command line's start-up", () => {
    const loaded = new Set<string>();
    const packages = new Set<string>();
    const visit = (file: string) => {
      if (loaded.has(file)) return;
      loaded.add(file);
      for (const { target, kind } of importsOf(join(ROOT, file)) as { target: string; kind: ImportKind }[]) {
        if (kind !== 'static') continue;
        if (target.startsWith('src/')) visit(target);
        else if (!target.startsWith('node:'))
          packages.add(
            target
              .split('/')
              .slice(0, target.startsWith('@') ? 2 : 1)
              .join('/'),
          );
      }
    };
    visit('src/cli/main.ts');
    // picomatch alone: small, and needed by every flow glob but `*` (the CLI bundle runs from V8's code cache).
    expect([...packages].sort()).toEqual(['picomatch']);
    expect(loaded.has('src/render/answers.ts')).toBe(false);
  });
});

/** A file's room: its folder under src/app/ (`transaction`, `step`…), or `app` for a file at the top of app/. */
function roomOf(path: string): string | undefined {
  if (!path.startsWith('src/app/')) return undefined;
  const parts = path.slice('src/app/'.length).split('/');
  return parts.length === 1 ? 'app' : parts[0]!;
}

describe('the rooms of src/app/ (docs/architecture.md)', () => {
  const rooms = layerTable('## The rooms of app/');
  const appFiles = files.filter((f) => roomOf(f) !== undefined);
  const crossings = edges.filter(({ from, target }) => roomOf(from) && roomOf(target) && roomOf(from) !== roomOf(target));

  it('name every folder of src/app/, and no file sits at its top', () => {
    expect(appFiles.filter((f) => roomOf(f) === 'app')).toEqual([]);
    expect([...new Set(appFiles.map((f) => roomOf(f)!))].filter((r) => !rooms.has(r))).toEqual([]);
    expect(rooms.size).toBe(5);
  });

  it(`hold: no import crosses to a room its row does not name`, () => {
    const wrong = crossings
      .filter(({ from, target }) => !rooms.get(roomOf(from)!)!.allowed.has(roomOf(target)!))
      .map(({ from, target }) => `${from} → ${target} (${roomOf(from)} may not import ${roomOf(target)})`);
    expect(wrong).toEqual([]);
    expect(crossings.length).toBeGreaterThan(50);
  });

  it('form no cycle between rooms', () => {
    const graph = new Map<string, Set<string>>();
    for (const { from, target } of crossings) (graph.get(roomOf(from)!) ?? graph.set(roomOf(from)!, new Set()).get(roomOf(from)!)!).add(roomOf(target)!);
    expect(cycles(graph)).toEqual([]);
  });
});

/** Every cycle found by a depth-first walk, each as `a → b → a`. */
function cycles(graph: Map<string, Set<string>>): string[] {
  const state = new Map<string, 'open' | 'done'>();
  const found: string[] = [];
  const walk = (node: string, path: string[]) => {
    state.set(node, 'open');
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === 'open') found.push([...path.slice(path.indexOf(next)), next].join(' → '));
      else if (!state.has(next)) walk(next, [...path, next]);
    }
    state.set(node, 'done');
  };
  for (const node of graph.keys()) if (!state.has(node)) walk(node, [node]);
  return found;
}
