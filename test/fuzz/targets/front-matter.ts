/** The front matter reader in process, on the YAML of the built-in flows, mutated, and on YAML made from snippets. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readFrontMatter } from '../../../src/formats/flow/front-matter.js';
import { packageRoot } from '../../../src/io/package-root.js';
import { FLOW_MAX_BYTES } from '../../../src/limits.js';
import { saveText, type Target } from '../harness.js';
import { mutate, randomYaml } from '../mutate.js';
import type { Rng } from '../rng.js';
import { judge } from './verdicts.js';

const FILE = '.autopilot/flows/fuzzed.md';

const FRONT_MATTERS = ['greenfield', 'existing-code'].map((id) => {
  const text = readFileSync(join(packageRoot(), 'flows', `${id}.md`), 'utf8');
  return text.slice(4, text.indexOf('\n---', 4) + 1).replace(`id: ${id}`, 'id: fuzzed');
});

interface YamlInput {
  source: string;
  firstLine: number;
}

function generate(r: Rng): YamlInput {
  const firstLine = 1 + r.int(3);
  if (r.chance(0.2)) return { source: randomYaml(r), firstLine };
  // The mutations see the YAML wrapped in its fences, so the YAML ones aim inside it.
  const wrapped = `---\n${r.pick(FRONT_MATTERS)}---`;
  const mutated = mutate(wrapped, r).text;
  return { source: mutated.replace(/^---\n/, '').replace(/---$/, ''), firstLine };
}

export const frontMatterTarget: Target<YamlInput> = {
  name: 'front-matter',
  share: 0.35,
  concurrency: 1,
  generate,
  run: (input) => {
    if (Buffer.byteLength(input.source) > FLOW_MAX_BYTES) return { kind: 'refused' };
    const read = readFrontMatter(input.source, FILE, input.firstLine, 'fuzzed');
    return judge({ value: read.value, problems: read.problems }, FILE);
  },
  save: (input, dir) => saveText(dir, 'front-matter.yaml', input.source),
};
