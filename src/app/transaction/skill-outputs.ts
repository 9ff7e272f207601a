/**
 * The outputs a step's skill declares (its SKILL.md front matter's
 * `outputs:`; docs/flow-format.md, "Outputs and their checks"), read only
 * where they are used: `next` names their templates and records the files an
 * attempt begins with, `done` judges them, `check` holds them valid. A skill
 * that declares none costs one read of its SKILL.md and no parser: the front
 * matter is searched for the key first. A built-in skill's declarations come
 * pre-read from dist/skills.json (checked against the file's sha1, which the
 * chain's verdict keeps under the file's identity, so `next` hashes nothing); a
 * repository's own skill is parsed on demand, by the YAML reader's lazy bundle.
 * A declaration that does not parse is an error naming the SKILL.md and line.
 */
import { readFileSync, statSync, type BigIntStats } from 'node:fs';
import { dirname, join } from 'node:path';
import { InputError, type Problem } from '../../errors.js';
import type { OutputDeclaration, SkillOutputs } from '../../evidence/types.js';
import type { Step } from '../../formats/flow/model.js';
import { hashText } from '../../hash.js';
import { knownFileHash, noteFileHash } from '../../io/journal-verdict.js';
import { packageRoot } from '../../io/package-root.js';
import { readBounded } from '../../io/read-bounded.js';
import type { Repo } from '../../io/repo.js';
import { skillDisplayPath, skillFile } from '../../io/skills.js';
import { SKILL_MAX_BYTES } from '../../limits.js';

export interface DeclaredOutputs extends SkillOutputs {
  /** The skill's folder: templates are relative to it. */
  dir: string;
  /** A declaration the run pinned (the skill changed since): each template's hash then, so a changed one is not judged by. */
  templateHashes?: Record<string, string>;
}

type Prebuilt = Record<string, { hash: string; folder?: string; outputs: OutputDeclaration[] }>;
let prebuilt: Prebuilt | undefined;

function builtIns(): Prebuilt {
  if (prebuilt) return prebuilt;
  try {
    const data = JSON.parse(readFileSync(join(packageRoot(), 'dist', 'skills.json'), 'utf8')) as { format?: unknown; skills?: unknown };
    prebuilt = data.format === 1 && typeof data.skills === 'object' && data.skills !== null ? (data.skills as Prebuilt) : {};
  } catch {
    prebuilt = {};
  }
  return prebuilt;
}

/** The hash of a built-in skill's folder as the build read it (`folder` in dist/skills.json), when it did. */
export function builtInFolderHash(name: string): string | undefined {
  const folder = builtIns()[name]?.folder;
  return typeof folder === 'string' ? folder : undefined;
}

/** Whether the front matter of a SKILL.md names `outputs:` at all. */
function declaresOutputs(text: string): boolean {
  if (!text.replace(/^\uFEFF/, '').startsWith('---')) return false;
  const end = text.indexOf('\n---', 3);
  return /^outputs\s*:/m.test(end < 0 ? text : text.slice(0, end));
}

/** The outputs the skill declares, or the problem that keeps them from being read; undefined when it declares none. */
export async function readSkillOutputs(repo: Repo, name: string): Promise<DeclaredOutputs | { problem: Problem } | undefined> {
  const skill = skillFile(repo, name);
  if (!skill.exists || skill.problem) return undefined;
  const file = skillDisplayPath(repo, skill.path);
  const stat = statSync(skill.path, { bigint: true, throwIfNoEntry: false });
  const read = readBounded(skill.path, file, 'skill file', SKILL_MAX_BYTES);
  if ('problem' in read) return read;
  if (!declaresOutputs(read.text)) return undefined;
  const dir = dirname(skill.path);
  const builtIn = builtIns()[name];
  if (
    skill.path === join(packageRoot(), 'skills', name, 'SKILL.md') &&
    builtIn &&
    Array.isArray(builtIn.outputs) &&
    builtIn.hash === skillHash(repo, skill.path, stat, read.text)
  )
    return builtIn.outputs.length > 0 ? { skill: name, file, dir, outputs: builtIn.outputs } : undefined;
  const { parseSkillOutputs } = await import('../../io/skill-outputs.js');
  const parsed = parseSkillOutputs(read.text, file);
  if (!parsed) return undefined;
  if ('problem' in parsed) return parsed;
  return parsed.outputs.length > 0 ? { skill: name, file, dir, outputs: parsed.outputs } : undefined;
}

/** A built-in SKILL.md's sha1: from the chain's verdict while the file is as a writer hashed it (`io/journal-verdict.ts`), else hashed and noted. */
function skillHash(repo: Repo, path: string, stat: BigIntStats | undefined, text: string): string {
  const known = stat && knownFileHash(repo.journalFile, path, stat);
  if (known !== undefined) return known;
  const hash = hashText(text);
  if (stat) noteFileHash(path, stat, hash);
  return hash;
}

/**
 * The outputs a step judges: those whose `file` is one of the step's Done-when
 * patterns, as written (a skill used by several steps, or by both flows,
 * declares each step's files; each step judges its own). Undefined when none is.
 */
export function outputsForStep(declared: DeclaredOutputs | undefined, step: Pick<Step, 'doneWhen'>): DeclaredOutputs | undefined {
  if (!declared) return undefined;
  const outputs = declared.outputs.filter((o) => step.doneWhen.includes(o.file));
  return outputs.length > 0 ? { ...declared, outputs } : undefined;
}

/** The same, a problem thrown: exit 2, naming the SKILL.md and the line. */
export async function skillOutputs(repo: Repo, name: string): Promise<DeclaredOutputs | undefined> {
  const found = await readSkillOutputs(repo, name);
  if (found && 'problem' in found) throw new InputError(found.problem);
  return found;
}
