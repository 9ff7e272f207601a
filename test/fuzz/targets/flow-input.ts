/** Flow files to fuzz with: the built-in flows, mutated, or text made from nothing. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../../src/io/package-root.js';
import { mutate, randomDocument } from '../mutate.js';
import type { Rng } from '../rng.js';

export interface FlowInput {
  id: string;
  text: string;
  /** The mutations applied, for the saved input's header. */
  applied: string[];
}

const BUILT_IN = ['greenfield', 'existing-code'].map((id) => ({ id, text: readFileSync(join(packageRoot(), 'flows', `${id}.md`), 'utf8') }));

export function flowInput(r: Rng, id = 'fuzzed'): FlowInput {
  if (r.chance(0.05)) return { id, text: randomDocument(r), applied: ['random'] };
  const base = r.pick(BUILT_IN);
  // Most cases keep the id in step with the file name, so the parse goes past the front matter.
  const text = r.chance(0.9) ? base.text.replace(`id: ${base.id}`, `id: ${id}`) : base.text;
  if (r.chance(0.03)) return { id, text, applied: [] };
  const mutated = mutate(text, r);
  return { id, text: mutated.text, applied: mutated.applied };
}
