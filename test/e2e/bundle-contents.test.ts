/**
 * What the built MCP bundle (dist/lazy/mcp.js) carries of zod: the schema
 * kinds the MCP SDK and autopilot's server build, and none of those neither
 * ever builds. zod imported by its named `z` (one value, the whole namespace)
 * kept all of them, some 45 KB of the bundle; `import * as z` keeps what is
 * called (eslint.config.js holds the import in src/).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { ROOT } from '../helpers/engine.js';

const BUILT = ['ZodObject', 'ZodString', 'ZodLiteral', 'ZodUnion', 'ZodRecord', 'ZodArray', 'ZodEnum', 'ZodNumber', 'ZodBoolean'];
const NEVER_BUILT = [
  'ZodMap',
  'ZodSet',
  'ZodPromise',
  'ZodFile',
  'ZodFunction',
  'ZodSymbol',
  'ZodDate',
  'ZodBigInt',
  'ZodTuple',
  'ZodLazy',
  'ZodTemplateLiteral',
  'ZodNaN',
];

it(`the MCP bundle holds the ${BUILT.length} zod schema kinds the server builds and none of ${NEVER_BUILT.length} it never does`, () => {
  const bundle = readFileSync(join(ROOT, 'dist', 'lazy', 'mcp.js'), 'utf8');
  const has = (kind: string) => bundle.includes(`"${kind}"`);
  expect(BUILT.filter((kind) => !has(kind))).toEqual([]);
  expect(NEVER_BUILT.filter(has)).toEqual([]);
});

it('the CLI bundle holds no module of src/git: each one a command imports comes from the lazy git bundle, once', () => {
  const sourcesOf = (file: string) => (JSON.parse(readFileSync(join(ROOT, 'dist', `${file}.map`), 'utf8')) as { sources: string[] }).sources;
  const git = (sources: string[]) => sources.filter((s) => /(^|\/)src\/git\//.test(s));
  expect(git(sourcesOf('cli.cjs'))).toEqual([]);
  // Every module of src/git that a file outside it imports (always with `await import`) is in dist/lazy/git.cjs.
  expect(git(sourcesOf('lazy/git.cjs')).length).toBeGreaterThanOrEqual(9);
});
