/**
 * The plan a command hands the transaction, made final for its write
 * (`app/transaction/transact.ts`): the locks broken on the way in journaled first, a
 * hand edit found held or dropped journaled (rule 7), the flow and the
 * skills pinned on what the run records, the lease a driving command holds,
 * the journal index, the skills' own state files beside a checkpoint.
 *
 * `finalPlan` is pure and never changes the plan it is given: it returns a
 * new one. The one read it needs (`readWriteFacts`: the skills as they read
 * now, their state files) is made before it, before the plan where a
 * pipeline can (`app/step/attempt.ts`).
 */
import { entry, type JournalEntry } from '../../formats/journal-line.js';
import type { Lease } from '../../formats/lease.js';
import type { LastAction } from '../../formats/pointer/parse-pointer.js';
import type { Position } from '../../formats/pointer/position.js';
import { loopStart } from '../../formats/flow/model.js';
import type { Lock } from '../../io/lock.js';
import type { Repo } from '../../io/repo.js';
import type { Plan } from './commit.js';
import type { Loaded } from './load-state.js';
import { skillsPinned, withSkillsPinned } from './skill-pins.js';
import { skillStateFiles } from './skill-position.js';

/** What the write of a plan needs from disk, read before the plan is made final. */
export interface WriteFacts {
  /** The skills as they read now: pinned by this write, for a run whose journal pins none. */
  pinned?: Awaited<ReturnType<typeof skillsPinned>>;
  /** The skills' own state files as they are now, kept in the plan's checkpoint (seed 002). */
  skillState?: { file: string; text: string }[];
}

/** The parts of a plan its write facts depend on: a draft of the plan will do. */
export type PlanShape = Pick<Plan, 'entries' | 'skillsHash' | 'checkpoint'> & { pointer?: { position: Position } };

/** How the transaction stands as the plan is written: the locks broken on the way in, the lease judged. */
export interface WriteAround {
  /** `lock_broken` entries to journal first (none where a retry answered "already recorded" after a commit). */
  broken: JournalEntry[];
  /** The lease a driving command was judged to take or renew. */
  lease?: Lease;
  facts: WriteFacts;
}

/**
 * The reads the write of a plan of this shape needs: the skills (where the
 * run pins none and the write may journal something: `mayJournal` says the
 * transaction adds entries of its own, a broken lock or a held edit), and the
 * skills' state files (where the plan takes a checkpoint). Reading more than
 * the write then uses changes nothing.
 */
export async function readWriteFacts(repo: Repo, at: Loaded, plan: PlanShape, mayJournal: boolean): Promise<WriteFacts> {
  const pins = !at.skills && plan.skillsHash === undefined && (plan.entries.length > 0 || mayJournal);
  const pinned = pins ? await skillsPinned(repo, at.flow) : undefined;
  const kept =
    plan.checkpoint && !plan.checkpoint.skillState ? await skillStateFiles(repo, at.flow, (plan.pointer?.position ?? at.reconciled.position).cycle) : [];
  const skillState = kept.flatMap((s) => (s.text === undefined ? [] : [{ file: s.file, text: s.text }]));
  return { pinned, skillState: skillState.length > 0 ? skillState : undefined };
}

/** Whether the transaction itself may journal something beside the plan: a lock broken on the way in, a hand edit held or dropped. */
export const mayJournal = (at: Loaded, lock: Pick<Lock, 'broken'>): boolean => lock.broken.length > 0 || at.held?.fresh === true || at.held?.dismissed === true;

/** The plan as it is written: a new plan, the one given left as it is. */
export function finalPlan(at: Loaded, plan: Readonly<Plan>, around: WriteAround): Plan {
  let entries = plan.entries;
  let pointer = plan.pointer;
  if (around.broken.length > 0) {
    entries = [...around.broken, ...entries];
    pointer ??= pointerAt(at, at.reconciled.position);
  }
  ({ entries, pointer } = withHeld(at, entries, pointer));
  const out: Plan = { ...plan, entries };
  if (pointer) out.pointer = pointer;
  if (entries.length > 0) out.flowHash ??= at.flow.hash;
  pinSkills(at, out, around.facts);
  // A command that drives and writes holds the lease it was judged to take (a refused one writes nothing, and takes none).
  if (around.lease && out.entries.length > 0 && out.lease === undefined) out.lease = around.lease;
  if (at.index) out.index ??= at.index;
  if (out.checkpoint && !out.checkpoint.skillState && around.facts.skillState) out.checkpoint = { ...out.checkpoint, skillState: around.facts.skillState };
  return out;
}

/**
 * The skills' pin rides on every record a run writes (`skills_hash`); a run
 * whose journal pins none (begun now, or by an older autopilot) is pinned by
 * this write, journaled (on its `run_started`, or as `skills_pinned`): the
 * skills as they read now, which is what such a run was judged by already,
 * so nothing changes for it and nothing is said.
 */
function pinSkills(at: Loaded, plan: Plan, facts: WriteFacts): void {
  if (plan.entries.length === 0 || plan.skillsHash !== undefined) return;
  if (at.skills) {
    plan.skillsHash = at.skills.hash;
    return;
  }
  if (!facts.pinned) throw new Error('the skills were not read before the write that pins them');
  plan.entries = withSkillsPinned(plan.entries, plan.pointer?.position ?? at.reconciled.position, facts.pinned);
  plan.skillsHash = facts.pinned.skills_hash;
}

/**
 * Rule 7: a hand edit this read found held (or found dropped, its section
 * deleted) is journaled by the first command that writes anything, as
 * `edit_held` (`edit_dismissed`), before the command's own entries; the
 * pointer is then written, showing it while it is held.
 */
function withHeld(at: Loaded, entries: JournalEntry[], pointer: Plan['pointer']): { entries: JournalEntry[]; pointer: Plan['pointer'] } {
  const held = at.held;
  if (!held || !(held.fresh || held.dismissed) || (entries.length === 0 && !pointer)) return { entries, pointer };
  const position = at.reconciled.position;
  const said = held.dismissed ? entry('edit_dismissed', position, { held: held.edit }) : entry('edit_held', position, { held: held.edit });
  return { entries: [said, ...entries], pointer: pointer ?? pointerAt(at, position) };
}

/**
 * The pointer to write for a position, keeping what a person added around the
 * six lines, and showing a hand edit held for a person while it is held.
 */
export function pointerAt(loaded: Loaded, position: Position, lastAction: LastAction | undefined = loaded.pointer?.lastAction): NonNullable<Plan['pointer']> {
  const held = loaded.held && !loaded.held.dismissed ? loaded.held.edit : undefined;
  return {
    position,
    extras: {
      loops: loopStart(loaded.flow) !== undefined,
      preamble: loaded.pointer?.preamble ?? '',
      extraSections: loaded.pointer?.extraSections ?? '',
      lastAction,
      ...(held ? { held } : {}),
    },
  };
}
