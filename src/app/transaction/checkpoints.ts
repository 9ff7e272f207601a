/**
 * Checkpoints: snapshots of the state under `_docs/_autopilot/checkpoints/`
 * (docs/state-and-journal.md, "Checkpoints") — the pointer as written, the
 * journal's last event, and the skills' own state files (seed 002). Made by `autopilot checkpoint`, and by the engine
 * before a session boundary and when a step fails for good. Kept: the 24
 * newest, then one a day for 30 days. `restore` returns the pointer to one,
 * journaled; the journal itself is never cut, so restoring loses no history.
 */
import { entry } from '../../formats/journal-line.js';
import { InputError } from '../../errors.js';
import { archivedIds, checkpointIds, readCheckpoint } from '../../io/checkpoint-files.js';
import { openRepo } from '../../io/repo.js';
import { parsePointer } from '../../formats/pointer/parse-pointer.js';
import type { Position } from '../../formats/pointer/position.js';
import type { Context } from './context.js';
import { readPointerText } from './load-state.js';
import { pointerAt, transact } from './transact.js';
import { FREE_TEXT_MAX_LENGTH } from '../../limits.js';
import { describeTarget } from '../../engine/follow-through.js';
import { reconcile } from '../../engine/reconcile.js';
import { isoTime } from '../../timestamp.js';
import { skillStateFiles } from './skill-position.js';

export interface CheckpointListing {
  id: string;
  at: string;
  note: string;
  seq: number;
  step: number | 'done' | null;
  status: string | null;
  /** Pruned by the retention rule: kept compressed in `checkpoints/archive/` (listed with `--all`). */
  archived?: true;
  /** The file could not be read: named, and the others are listed around it. */
  problem?: string;
}

/** The checkpoints, newest first; `all`: the archived ones too. A file that cannot be read is listed with its problem, never fatal. */
export function listCheckpoints(ctx: Pick<Context, 'repo'>, all = false): CheckpointListing[] {
  const repo = openRepo(ctx.repo);
  const ids = [...checkpointIds(repo).map((id) => ({ id, archived: false })), ...(all ? archivedIds(repo).map((id) => ({ id, archived: true })) : [])];
  ids.sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
  return ids.map(({ id, archived }) => {
    let c: ReturnType<typeof readCheckpoint>;
    try {
      c = readCheckpoint(repo, id);
    } catch (error) {
      const problem = error instanceof InputError ? (error.problems[0]?.message ?? 'unreadable') : String(error);
      return { id, at: '', note: '', seq: 0, step: null, status: null, ...(archived ? { archived: true as const } : {}), problem };
    }
    let position: Position | undefined;
    try {
      position = parsePointer(c.pointer, id).position;
    } catch {
      position = undefined;
    }
    return {
      id,
      at: c.at,
      note: c.note,
      seq: c.seq,
      step: position?.step ?? null,
      status: position?.status ?? null,
      ...(archived ? { archived: true as const } : {}),
    };
  });
}

/** `autopilot checkpoint [--note TEXT]`: a snapshot now (no journal event: a checkpoint changes no state). */
export async function runCheckpoint(ctx: Context, note: string): Promise<{ id: string; pruned: string[] }> {
  // A note is free text kept in the checkpoint and listed by `checkpoints`: bounded like a reason, refused (not cut) before anything is read.
  if (note.length > FREE_TEXT_MAX_LENGTH)
    throw new InputError({
      message: `--note: a note of ${note.length} characters is too long`,
      expected: `at most ${FREE_TEXT_MAX_LENGTH} characters: what this checkpoint is for, in a line`,
      received: `${note.slice(0, 40)}…`,
    });
  const { written } = await transact(ctx, { flows: 'read' }, async (tx) => {
    const pointer = readPointerText(tx.repo);
    if (pointer === null) throw new InputError({ message: 'there is no pointer to snapshot yet', expected: 'a run under way: `autopilot next` first' });
    await tx.state();
    return { plan: { entries: [], checkpoint: { label: note || 'checkpoint', note, pointer } }, answer: () => undefined };
  });
  return { id: written.checkpoint!.id, pruned: written.checkpoint!.pruned };
}

/** `autopilot restore ID`: the pointer as it was then, journaled as the new record; the journal keeps everything since. */
export async function runRestore(
  ctx: Context,
  id: string,
): Promise<{ id: string; position: Position; warning?: string; skillState?: string[]; notRestored?: string[] }> {
  const repo = openRepo(ctx.repo);
  const checkpoint = readCheckpoint(repo, id);
  let restored: ReturnType<typeof parsePointer>;
  try {
    restored = parsePointer(checkpoint.pointer, `checkpoint ${id}`);
  } catch (error) {
    if (error instanceof InputError) throw new InputError(error.problems, 'The checkpoint holds a pointer autopilot cannot read; choose another.');
    throw error;
  }
  const position = restored.position;
  // A person's command (rule 6): it moves the run under the lock, but leaves the lease to the conversations.
  const { result } = await transact(ctx, { flows: 'cache', person: true }, async (tx) => {
    const loaded = await tx.state();
    if (position.flow !== loaded.flow.id) {
      throw new InputError({
        message: `checkpoint ${id} is of the flow ${position.flow}, and this run is ${loaded.flow.id}`,
        expected: 'a checkpoint of this run',
      });
    }
    // `## Last Action` says what was done: the restore.
    const lastAction = {
      action: `restore ${id}`,
      result: 'success' as const,
      at: isoTime(tx.ctx.now()),
      next: describeTarget(position),
      ...(typeof position.step === 'number' ? { nextStep: position.step } : {}),
    };
    const pointer = pointerAt({ ...loaded, pointer: restored }, position, lastAction);
    // What the folder will make of it: when the next command moves the position straight back, say so now.
    const judged = reconcile(loaded.flow, position, loaded.evidence).position;
    const movesBack = judged.step !== position.step || judged.cycle !== position.cycle;
    const warning = movesBack
      ? `the folder does not match this checkpoint: the next command will move the position to ${describeTarget(judged)} (the files on disk decide; restore the files too, e.g. from git, to stay at ${describeTarget(position)})`
      : undefined;
    // The state as it was before, kept: a restore can itself be undone (the transaction adds the skills' state files as they are now).
    const before = readPointerText(tx.repo);
    // Seed 002: the skills' own state files come back with the pointer — those a skill of this flow still declares, where they changed.
    const declared = await skillStateFiles(tx.repo, loaded.flow, position.cycle);
    const files: { path: string; text: string }[] = [];
    const restoredFiles: string[] = [];
    const notRestored: string[] = [];
    for (const kept of checkpoint.skill_state ?? []) {
      const now = declared.find((d) => d.file === kept.file);
      if (!now) notRestored.push(kept.file);
      else if (now.text !== kept.text) {
        files.push({ path: now.path, text: kept.text });
        restoredFiles.push(kept.file);
      }
    }
    return {
      plan: {
        entries: [
          entry('checkpoint_restored', position, {
            checkpoint: id,
            journal_then: checkpoint.seq,
            ...(restoredFiles.length > 0 ? { skill_state: restoredFiles } : {}),
          }),
        ],
        pointer,
        ...(files.length > 0 ? { files } : {}),
        ...(before !== null ? { checkpoint: { label: 'before-restore', note: `automatic: before restoring ${id}`, pointer: before, before: true } } : {}),
      },
      answer: () => ({
        id,
        position,
        ...(warning ? { warning } : {}),
        ...(restoredFiles.length > 0 ? { skillState: restoredFiles } : {}),
        ...(notRestored.length > 0 ? { notRestored } : {}),
      }),
    };
  });
  return result;
}
