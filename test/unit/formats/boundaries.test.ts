/**
 * The file formats and the judges of a step's evidence are pure: nothing
 * under src/formats or src/evidence (nor the shared
 * errors, limits and hash) reads a file, the clock or the environment, or
 * leans on the layers that do. The flow format (src/formats/flow) parses its
 * Markdown with unified and remark: pure parsers of a text, allowed here.
 * docs/architecture.md, "File formats (formats/)".
 */
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../helpers/engine.js';
import { SRC, sources, staticImports } from '../../helpers/imports.js';

const PURE = [...sources(join(SRC, 'formats')), ...sources(join(SRC, 'evidence')), join(SRC, 'errors.ts'), join(SRC, 'limits.ts'), join(SRC, 'hash.ts')];
/** What a pure module may import: itself and the pure layers, node:crypto, yaml (whose readers are loaded lazily), and the Markdown parser the flow format reads with. */
const ALLOWED = /^(src\/(formats|evidence)\/|src\/(errors|limits|hash)\.ts$|node:crypto$|yaml$|unified$|remark-(parse|gfm|frontmatter)$|mdast-util-to-string$)/;

describe('the formats are pure', () => {
  it('import nothing that reads a file, the clock or the environment', () => {
    const edges = PURE.flatMap((file) => staticImports(file).map((to) => `${relative(ROOT, file)} → ${to}`));
    expect(edges.filter((edge) => !ALLOWED.test(edge.split(' → ')[1]!))).toEqual([]);
  });

  it('never touch the process, the clock or the environment', () => {
    // node:crypto loaded on first use (hash.ts) is the import it stands for, not the process's state.
    const text = (file: string) => readFileSync(file, 'utf8').replaceAll("process.getBuiltinModule('node:crypto')", '');
    const touching = PURE.filter((file) => /\bprocess\.|\bDate\.now\(|new Date\(\)|\bMath\.random\(/.test(text(file)));
    expect(touching.map((file) => relative(ROOT, file))).toEqual([]);
  });

  it('the flow format among them imports no edge either: nothing under src/formats/flow imports src/io', () => {
    const edges = sources(join(SRC, 'formats', 'flow')).flatMap((file) => staticImports(file).map((to) => `${relative(ROOT, file)} → ${to}`));
    expect(edges.filter((edge) => / → (src\/(io|app|cli|commands|git)\/|node:fs|node:child_process)/.test(edge))).toEqual([]);
  });
});
