/**
 * The skills' declarations a run is pinned to (docs/state-and-journal.md,
 * "Pinned skills"), as the journal keeps them: `run_started` (or
 * `run_repinned`, or a `skills_pinned` of their own) carries them, and the
 * journal index keeps the newest for each flow. For every skill the
 * run's flow names: where it was read (the built-in skill, or the
 * repository's `.autopilot/skills/<name>/`), a hash of its folder (its
 * SKILL.md and every file beside it), its declared outputs, and a hash of
 * each template they name. `skills_hash` names the whole set; the pointer
 * record carries it, so a command tells "nothing changed" from one hash.
 *
 * Pure: the shape, its check (the journal is a file of the repository like
 * any other, so a pin is used only when it has this shape), the hash of a
 * set, and what changed between two sets, in words.
 */
import type { OutputDeclaration } from '../evidence/types.js';
import { hashText } from '../hash.js';

export interface PinnedSkill {
  /** `builtin`: the package's skill; `repository`: `.autopilot/skills/<name>/`; `none`: no SKILL.md was found. */
  source: 'builtin' | 'repository' | 'none';
  /** A short hash of the skill's folder: every file in it, by path and content. */
  hash: string;
  /** The outputs its SKILL.md declares (none: empty). */
  outputs: OutputDeclaration[];
  /** Each template the outputs name, with a short hash of its text (`missing` when there was none). */
  templates: Record<string, string>;
  /** The declaration did not read when the run was pinned: why (its outputs are then none). */
  problem?: string;
}

export type PinnedSkills = Record<string, PinnedSkill>;

/** The skills of a run as pinned, or as they read now: the set and its hash. */
export interface SkillPins {
  hash: string;
  skills: PinnedSkills;
}

/** A short hash of a text: 16 hex digits of its sha1 (a folder's, a template's). */
export const shortHash = (text: string): string => hashText(text).slice(0, 16);

/** The hash that names a set of skills: each skill's name, source and folder hash, in name order. */
export function skillsHash(skills: Readonly<Record<string, Pick<PinnedSkill, 'source' | 'hash'>>>): string {
  return shortHash(
    JSON.stringify(
      Object.keys(skills)
        .sort()
        .map((name) => [name, skills[name]!.source, skills[name]!.hash]),
    ),
  );
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isStrings = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === 'string');

function isOutput(v: unknown): v is OutputDeclaration {
  if (!isRecord(v) || typeof v.file !== 'string' || !isStrings(v.sections) || !isStrings(v.checks)) return false;
  return (v.template === undefined || typeof v.template === 'string') && (v.maxClarifications === undefined || typeof v.maxClarifications === 'number');
}

function isPinnedSkill(v: unknown): v is PinnedSkill {
  if (!isRecord(v) || !['builtin', 'repository', 'none'].includes(v.source as string) || typeof v.hash !== 'string') return false;
  if (!Array.isArray(v.outputs) || !v.outputs.every(isOutput) || !isRecord(v.templates)) return false;
  return Object.values(v.templates).every((h) => typeof h === 'string') && (v.problem === undefined || typeof v.problem === 'string');
}

/** Whether a journal value is a set of pinned skills this autopilot reads. */
export function isPinnedSkills(v: unknown): v is PinnedSkills {
  return isRecord(v) && Object.values(v).every(isPinnedSkill);
}

/** Where a skill was read, in words: `the built-in one`, `.autopilot/skills/<name>/SKILL.md`. */
const whereOf = (name: string, skill: PinnedSkill) =>
  skill.source === 'builtin' ? 'the built-in one' : skill.source === 'repository' ? `.autopilot/skills/${name}/SKILL.md` : 'no SKILL.md';

/** The skills whose folder differs between the pinned set and the set as it reads now, each in words; by name. */
export function skillChanges(pinned: PinnedSkills, current: Readonly<Record<string, Pick<PinnedSkill, 'source' | 'hash'>>>): Map<string, string> {
  const changes = new Map<string, string>();
  for (const name of [...new Set([...Object.keys(pinned), ...Object.keys(current)])].sort()) {
    const was = pinned[name];
    const now = current[name];
    if (!was || !now) continue;
    if (was.source !== now.source) {
      const moved = now.source === 'repository' ? `is now read from ${whereOf(name, now as PinnedSkill)}` : `is now ${whereOf(name, now as PinnedSkill)}`;
      changes.set(name, `the skill ${name} ${moved} (the run pinned ${whereOf(name, was)})`);
    } else if (was.hash !== now.hash) changes.set(name, `the skill ${name}'s files changed (${whereOf(name, was)})`);
  }
  return changes;
}
