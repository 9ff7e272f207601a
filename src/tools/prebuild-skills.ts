/**
 * Build step: read the built-in skills' output declarations once and ship
 * them (dist/skills.json), so `next` and `done` never load the YAML parser
 * for a built-in skill. Each entry carries the sha1 of its SKILL.md: a file
 * changed since the build is parsed again; and the hash of its folder
 * (`folder`, `io/skill-folder.ts`), what a run pins the skill by, so no
 * command reads the built-in skills' files to tell they are as pinned.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { formatProblem } from '../errors.js';
import { parseOutputsDeclaration } from '../formats/skill-outputs.js';
import { hashText } from '../hash.js';
import { packageRoot } from '../io/package-root.js';
import { skillFolderHash } from '../io/skill-folder.js';

const dir = join(packageRoot(), 'skills');
const skills: Record<string, { hash: string; folder: string; outputs: unknown[] }> = {};
let failed = false;
for (const name of readdirSync(dir)) {
  const file = join(dir, name, 'SKILL.md');
  if (!existsSync(file)) continue;
  const text = readFileSync(file, 'utf8');
  const parsed = parseOutputsDeclaration(text, `skills/${name}/SKILL.md`);
  if (parsed && 'problem' in parsed) {
    console.error(formatProblem(parsed.problem));
    failed = true;
    continue;
  }
  skills[name] = { hash: hashText(text), folder: skillFolderHash(join(dir, name)), outputs: parsed?.outputs ?? [] };
}
if (failed) process.exit(1);
const target = process.argv[2] ?? join(packageRoot(), 'dist', 'skills.json');
writeFileSync(target, JSON.stringify({ format: 1, skills }));
console.log(`skills.json: ${Object.keys(skills).length} built-in skills' outputs pre-read`);
