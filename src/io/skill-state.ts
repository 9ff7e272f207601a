/**
 * Finds and reads a skill's own record of where it is inside its step: the
 * declaration in its SKILL.md, then the state file it names under the docs
 * folder (the format of both: `formats/skill-state.ts`). Only the front
 * matter of SKILL.md and the one state file are read; both are refused when
 * too large, or a folder, and a state file a symlink leads out of the docs
 * folder is not read. Every error is a Problem, never an exception.
 */
import { readFileSync, realpathSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Problem } from '../errors.js';
import { withCycle } from '../formats/flow/model.js';
import { parseSkillState, parseStateDeclaration } from '../formats/skill-state.js';
import { SKILL_MAX_BYTES, SKILL_STATE_MAX_BYTES } from '../limits.js';
import { displayPath, isInside, type Repo } from './repo.js';

export interface SkillState {
  /** The state file, relative to the repository root (`_docs/02_document/state.json`). */
  file: string;
  position: string;
}

/**
 * The position a skill recorded, undefined when the skill declares no state
 * file or the file does not exist yet (the skill has not started), or the
 * problem that keeps it from being read.
 */
export function readSkillState(repo: Pick<Repo, 'root' | 'docs'>, skillFile: string, cycle: number): SkillState | { problem: Problem } | undefined {
  const declared = declaredStateFile(repo, skillFile, cycle);
  if (!declared || 'problem' in declared) return declared;
  const { file, path, real, declaration } = declared;
  if (real === undefined) return undefined;
  if (!isInside(realPath(repo.docs) ?? repo.docs, real)) {
    return {
      problem: {
        file,
        message: 'the skill state file leads outside the docs folder (through a symlink); autopilot does not read it',
        expected: 'a file inside the docs folder',
        received: real,
      },
    };
  }
  const state = readSmallFile(path, file, SKILL_STATE_MAX_BYTES);
  if (!state || 'problem' in state) return state;
  const parsed = parseSkillState(state.text, file, declaration.field);
  return 'problem' in parsed ? parsed : { file, position: parsed.position };
}

/** A skill's own state file as a checkpoint keeps it: where it is (repository-relative and absolute) and its bytes. */
export interface SkillStateFile {
  file: string;
  path: string;
  /** Undefined when the file does not exist (the skill has not started), or cannot be kept (a folder, too large, outside the docs folder). */
  text?: string;
}

/** The state file a skill declares, with its text when there is one to keep; undefined when it declares none (or the declaration is wrong: `check` names it). */
export function skillStateFile(repo: Pick<Repo, 'root' | 'docs'>, skillFile: string, cycle: number): SkillStateFile | undefined {
  const declared = declaredStateFile(repo, skillFile, cycle);
  if (!declared || 'problem' in declared) return undefined;
  const { file, path, real } = declared;
  if (real === undefined || !isInside(realPath(repo.docs) ?? repo.docs, real)) return { file, path };
  const state = readSmallFile(path, file, SKILL_STATE_MAX_BYTES);
  return state && 'text' in state ? { file, path, text: state.text } : { file, path };
}

/** Where the state file a SKILL.md declares is for this cycle (its real path, undefined while it does not exist); undefined when it declares none. */
function declaredStateFile(repo: Pick<Repo, 'root' | 'docs'>, skillFile: string, cycle: number) {
  const skill = readSmallFile(skillFile, displayPath(skillFile, repo.root), SKILL_MAX_BYTES);
  if (!skill || 'problem' in skill) return skill;
  const declaration = parseStateDeclaration(skill.text, displayPath(skillFile, repo.root));
  if (!declaration || 'problem' in declaration) return declaration;
  const path = join(repo.docs, withCycle(declaration.file, cycle));
  return { declaration, path, file: displayPath(path, repo.root), real: realPath(path) };
}

/** The text of a file, undefined when there is none; a folder or a file too large to be the one meant is a problem. */
function readSmallFile(path: string, file: string, limit: number): { text: string } | { problem: Problem } | undefined {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (!stat) return undefined;
  if (!stat.isFile())
    return { problem: { file, message: 'this should be a file', expected: 'a file', received: stat.isDirectory() ? 'a folder' : 'something else' } };
  if (stat.size > limit)
    return {
      problem: {
        file,
        message: `the file is too large (${Math.ceil(stat.size / 1024)} KB)`,
        expected: `at most ${limit / 1024} KB`,
        received: `${stat.size} bytes`,
      },
    };
  try {
    return { text: readFileSync(path, 'utf8') };
  } catch (e) {
    return {
      problem: { file, message: 'the file cannot be read', expected: 'a readable file', received: firstLine(e instanceof Error ? e.message : String(e)) },
    };
  }
}

/** The real path of an existing file, undefined when there is none. */
function realPath(path: string): string | undefined {
  try {
    return realpathSync.native(path);
  } catch {
    return undefined;
  }
}

const firstLine = (text: string) => (text.split('\n')[0] ?? '').slice(0, 160);
