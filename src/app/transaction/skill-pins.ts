/**
 * The skills' declarations a run is pinned to, at the edge
 * (docs/state-and-journal.md, "Pinned runs"; the shape is
 * `formats/skill-pins.ts`). Each command tells from one hash whether the
 * skills of the run's flow are as pinned: a built-in skill's folder hash
 * comes from dist/skills.json (no file of it read), a repository's own skill
 * folder is hashed, and the set's hash is compared with the one the
 * journal's last record carries. Only when they differ is the pinned set
 * read (from the journal index): the skills that changed are named, and the
 * judges use their pinned declarations until a person's `repin`.
 *
 * Reading the declarations as they are now (to pin them) parses a
 * repository's own SKILL.md, so it is asked for only where a run is pinned:
 * as it starts, at the first write of a run whose journal pins none, and at
 * `repin`.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { InputError } from '../../errors.js';
import { entry, type JournalEntry } from '../../formats/journal-line.js';
import type { Position } from '../../formats/pointer/position.js';
import type { Flow } from '../../formats/flow/model.js';
import { isPinnedSkills, shortHash, skillChanges, skillsHash, type PinnedSkill, type PinnedSkills, type SkillPins } from '../../formats/skill-pins.js';
import type { JournalHead } from '../../io/journal-head.js';
import type { LoadedIndex } from '../../io/journal-index.js';
import { packageRoot } from '../../io/package-root.js';
import { readBounded } from '../../io/read-bounded.js';
import type { Repo } from '../../io/repo.js';
import { skillFolderHash } from '../../io/skill-folder.js';
import { SKILL_PINS_MAX_BYTES, TEMPLATE_MAX_BYTES } from '../../limits.js';
import { builtInFolderHash, readSkillOutputs, skillOutputs, type DeclaredOutputs } from './skill-outputs.js';

/** What a command knows of the run's pinned skills. */
export interface SkillPinState {
  /** The hash of the pinned set: every record the run writes carries it. */
  hash: string;
  /** Skills whose folder is not as pinned: their pinned declarations (the judges keep them), and each change in words. */
  changed?: { skills: PinnedSkills; changes: string[] };
}

type Identity = Pick<PinnedSkill, 'source' | 'hash'>;

const skillsOf = (flow: Flow) => [...new Set(flow.steps.map((s) => s.skill))].sort();
const builtInDir = (name: string) => join(packageRoot(), 'skills', name);
const ownDir = (repo: Repo, name: string) => join(repo.repoSkillsDir, name);

/** Where a skill is read now (the repository's own SKILL.md first, as `skillFile` finds it) and its folder's hash. */
function identityOf(repo: Repo, name: string, own: boolean): Identity {
  if (own && existsSync(join(ownDir(repo, name), 'SKILL.md'))) return { source: 'repository', hash: skillFolderHash(ownDir(repo, name)) };
  const built = builtInFolderHash(name);
  if (built !== undefined) return { source: 'builtin', hash: built };
  return existsSync(join(builtInDir(name), 'SKILL.md')) ? { source: 'builtin', hash: skillFolderHash(builtInDir(name)) } : { source: 'none', hash: 'none' };
}

/** Each skill the flow names, as it is read now. No parser, and no file of a built-in skill read. */
export function currentIdentities(repo: Repo, flow: Flow): Record<string, Identity> {
  const own = existsSync(repo.repoSkillsDir);
  return Object.fromEntries(skillsOf(flow).map((name) => [name, identityOf(repo, name, own)]));
}

/**
 * The run's skill pin, compared with the skills as they are; undefined for
 * a run whose journal pins none (an older autopilot's: the first write pins
 * them). `journalIndex` is read only when something changed.
 */
export function readSkillPinState(repo: Repo, flow: Flow, head: JournalHead, journalIndex: () => LoadedIndex): SkillPinState | undefined {
  const record = head.record?.pointer;
  const hash = record?.flow === flow.id ? record.skills_hash : undefined;
  if (!hash) return undefined;
  const now = currentIdentities(repo, flow);
  if (skillsHash(now) === hash) return { hash };
  // The journal is a repository's file like any other: a pinned set is used only when it has the shape, and the hash, the record names.
  const candidate = journalIndex().index.skills?.[flow.id];
  if (!isPinnedSkills(candidate) || skillsHash(candidate) !== hash) return { hash };
  const changes = skillChanges(candidate, now);
  if (changes.size === 0) return { hash };
  return { hash, changed: { skills: Object.fromEntries([...changes.keys()].map((n) => [n, candidate[n]!])), changes: [...changes.values()] } };
}

/** What a changed skill means for the run, in one sentence. */
export function skillChangeNotice(state: SkillPinState): string | undefined {
  if (!state.changed) return undefined;
  return `${state.changed.changes.join('; ')}: the judges keep the declarations this run pinned until a person adopts the new ones with \`autopilot repin\``;
}

/** Each skill the flow names, its declarations read as they are now: what a run is pinned to. */
export async function currentSkillPins(repo: Repo, flow: Flow): Promise<SkillPins> {
  const identities = currentIdentities(repo, flow);
  const skills: PinnedSkills = {};
  for (const [name, identity] of Object.entries(identities)) {
    const read = identity.source === 'none' ? undefined : await readSkillOutputs(repo, name);
    if (read && 'problem' in read) {
      skills[name] = { ...identity, outputs: [], templates: {}, problem: read.problem.message };
      continue;
    }
    const templates: Record<string, string> = {};
    for (const output of read?.outputs ?? []) {
      if (!output.template || templates[output.template] !== undefined) continue;
      const text = readBounded(join(read!.dir, output.template), output.template, 'template', TEMPLATE_MAX_BYTES);
      templates[output.template] = 'text' in text ? shortHash(text.text) : 'missing';
    }
    skills[name] = { ...identity, outputs: read?.outputs ?? [], templates };
  }
  return { hash: skillsHash(skills), skills: withinLimit(skills) };
}

/** The set as a journal line can hold it: past the limit, the largest declarations are kept by their hash only (a judge needing one asks for a repin). */
function withinLimit(skills: PinnedSkills): PinnedSkills {
  const kept = { ...skills };
  const size = () => JSON.stringify(kept).length;
  for (const name of Object.keys(kept).sort((a, b) => JSON.stringify(kept[b]).length - JSON.stringify(kept[a]).length)) {
    if (size() <= SKILL_PINS_MAX_BYTES) break;
    kept[name] = {
      ...kept[name]!,
      outputs: [],
      problem: `its declarations were too large to keep in the journal (over ${SKILL_PINS_MAX_BYTES} bytes with the others)`,
    };
  }
  return kept;
}

/**
 * The outputs a skill declares, for the judges of a run: the pinned
 * declaration when the skill changed since the run pinned it (its templates
 * with the hashes they had), else the skill as it reads now.
 */
export async function runSkillOutputs(repo: Repo, pins: SkillPinState | undefined, name: string): Promise<DeclaredOutputs | undefined> {
  const pinned = pins?.changed?.skills[name];
  if (!pinned) return skillOutputs(repo, name);
  const dir = pinned.source === 'repository' ? ownDir(repo, name) : builtInDir(name);
  const file = pinned.source === 'repository' ? `.autopilot/skills/${name}/SKILL.md` : `the built-in skill ${name}`;
  if (pinned.problem !== undefined)
    throw new InputError({
      file,
      message: `the skill ${name} changed since this run pinned it, and the declaration the run pinned cannot be used: ${pinned.problem}`,
      expected: "a person's `autopilot repin`, which adopts the skill as it is now",
    });
  return pinned.outputs.length > 0 ? { skill: name, file, dir, outputs: pinned.outputs, templateHashes: pinned.templates } : undefined;
}

/** The skills as they read now, as a journal entry's details: `skills` and their hash. */
export async function skillsPinned(repo: Repo, flow: Flow): Promise<{ skills: PinnedSkills; skills_hash: string }> {
  const pins = await currentSkillPins(repo, flow);
  return { skills: pins.skills, skills_hash: pins.hash };
}

/**
 * The entries with the skills pinned: on the run's `run_started` (or
 * `run_repinned`) when the command writes one, else as a `skills_pinned` of
 * their own, first (`changed`: what a person adopts).
 */
export function withSkillsPinned(
  entries: readonly JournalEntry[],
  at: Position,
  pinned: { skills: PinnedSkills; skills_hash: string },
  changed?: string[],
): JournalEntry[] {
  const carrier = entries.findLastIndex((e) => e.event === 'run_started' || e.event === 'run_repinned');
  if (carrier >= 0) return entries.map((e, i) => (i === carrier ? ({ ...e, ...pinned } as JournalEntry) : e));
  return [entry('skills_pinned', at, { ...pinned, changed }), ...entries];
}
