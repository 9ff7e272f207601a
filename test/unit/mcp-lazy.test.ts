/**
 * The CLI's start-up time: only `autopilot mcp` may load the MCP SDK and
 * zod. Nothing outside src/mcp imports them, or src/mcp, other than with
 * `await import(…)`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SRC, staticEdgesInto } from '../helpers/imports.js';

const MCP = join(SRC, 'mcp');

describe('the MCP server is loaded lazily', () => {
  it('no file outside src/mcp imports the SDK, zod or src/mcp statically', () => {
    expect(staticEdgesInto(MCP, /→ (@modelcontextprotocol\/|zod|src\/mcp\/)/)).toEqual([]);
  });

  it('the CLI loads src/mcp/server.ts with await import', () => {
    expect(readFileSync(join(SRC, 'cli', 'main.ts'), 'utf8')).toContain("await import('../mcp/server.js')");
  });
});
