/**
 * The CLI's start-up time: only `autopilot mcp` may load the MCP SDK and
 * zod. Nothing outside src/mcp imports them, or src/mcp, other than with
 * `await import(…)`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/engine.js';

const SRC = join(ROOT, 'src');
const MCP = join(SRC, 'mcp');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? sources(path) : entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Static imports and re-exports, type-only ones left out (they are erased). */
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

describe('the MCP server is loaded lazily', () => {
  it('no file outside src/mcp imports the SDK, zod or src/mcp statically', () => {
    const offenders = sources(SRC)
      .filter((file) => !file.startsWith(MCP + '/'))
      .flatMap((file) => staticImports(file).map((target) => `${relative(ROOT, file)} → ${target}`))
      .filter((edge) => /→ (@modelcontextprotocol\/|zod|src\/mcp\/)/.test(edge));
    expect(offenders).toEqual([]);
  });

  it('the CLI loads src/mcp/server.ts with await import', () => {
    expect(readFileSync(join(SRC, 'cli', 'main.ts'), 'utf8')).toContain("await import('../mcp/server.js')");
  });
});
