/**
 * Checkpoints (seed 002): snapshots of the state under
 * `_docs/_autopilot/checkpoints/<id>.json` — the pointer as written, the
 * journal position, the skill's own state file when it has one. Made by
 * `autopilot checkpoint`, and by the engine before a session boundary and when
 * a step fails for good. Kept: the 24 newest, then one a day for 30 days.
 * `restore` returns the pointer to one, through the one write path, journaled;
 * the journal itself is never cut, so restoring loses no history.
 */
import { readdirSync, readFileSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { checkpointId, parseCheckpointId } from '../engine/checkpoint-id.js';
import { entry } from '../engine/journal-entry.js';
import { retain } from '../engine/retention.js';
import { InputError } from '../errors.js';
import { openRepo, type Repo } from '../io/repo.js';
import { parsePointer } from '../state/parse-pointer.js';
import type { Position } from '../state/position.js';
import { commit } from './commit.js';
import type { Context } from './context.js';
import { readState } from './read-state.js';
import { readPointerText } from './load-state.js';
import { pointerPlan, takeLock } from './step.js';
import { loadRepoFlows } from './flows.js';

export interface Checkpoint {
  id: string;
  at: string;
  note: string;
  /** The journal's last event when it was made. */
  seq: number;
  /** The pointer file, exactly. */
  pointer: string;
  skill_state?: { file: string; text: string };
}

export interface CheckpointListing {
  id: string;
  at: string;
  note: string;
  seq: number;
  step: number | 'done' | null;
  status: string | null;
}

const CHECKPOINT_MAX_BYTES = 256 * 1024;
export const checkpointsDir = (repo: Repo) => join(repo.autopilotDir, 'checkpoints');

/** The snapshot to write, for `commit`; the caller has just written (or is writing) `pointerText`. */
export function snapshot(label: string, note: string, at: Date, seq: number, pointerText: string): { path: (repo: Repo) => string; body: Checkpoint } {
  const id = checkpointId(at, label);
  return { path: (repo) => join(checkpointsDir(repo), `${id}.json`), body: { id, at: at.toISOString(), note, seq, pointer: pointerText } };
}

/** Removes what the retention rule no longer keeps; returns the ids removed. */
export function prune(repo: Repo, now: Date): string[] {
  const refs = listIds(repo).map((id) => ({ id, at: parseCheckpointId(id)!.at }));
  const { prune: drop } = retain(refs, now);
  for (const id of drop) unlinkSync(join(checkpointsDir(repo), `${id}.json`));
  return drop;
}

function listIds(repo: Repo): string[] {
  let names: string[];
  try {
    names = readdirSync(checkpointsDir(repo));
  } catch {
    return [];
  }
  return names
    .filter((n) => n.endsWith('.json'))
    .map((n) => n.slice(0, -5))
    .filter((id) => parseCheckpointId(id) !== undefined)
    .sort()
    .reverse();
}

function readCheckpoint(repo: Repo, id: string): Checkpoint {
  if (!parseCheckpointId(id)) {
    throw new InputError({
      message: `"${id.slice(0, 80)}" is not a checkpoint id`,
      expected: 'an id from `autopilot checkpoints`, e.g. 2026-11-26T010203.000Z-boundary',
      received: id.slice(0, 80),
    });
  }
  const file = join(checkpointsDir(repo), `${id}.json`);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    throw new InputError({ message: `no checkpoint ${id}`, expected: 'an id from `autopilot checkpoints`', received: id });
  }
  if (text.length > CHECKPOINT_MAX_BYTES)
    throw new InputError({ file, message: 'this checkpoint is too large to be one autopilot wrote', expected: `at most ${CHECKPOINT_MAX_BYTES} bytes` });
  try {
    const data = JSON.parse(text) as Checkpoint;
    if (typeof data.pointer !== 'string' || typeof data.seq !== 'number') throw new Error('shape');
    return data;
  } catch {
    throw new InputError({ file, message: 'this checkpoint is not one autopilot wrote', expected: 'a JSON object with `pointer` and `seq`' });
  }
}

export function listCheckpoints(ctx: Pick<Context, 'repo'>): CheckpointListing[] {
  const repo = openRepo(ctx.repo);
  return listIds(repo).map((id) => {
    const c = readCheckpoint(repo, id);
    let position: Position | undefined;
    try {
      position = parsePointer(c.pointer, id).position;
    } catch {
      position = undefined;
    }
    return { id, at: c.at, note: c.note, seq: c.seq, step: position?.step ?? null, status: position?.status ?? null };
  });
}

/** `autopilot checkpoint [--note TEXT]`: a snapshot now (no journal event: a checkpoint changes no state). */
export async function runCheckpoint(ctx: Context, note: string): Promise<{ id: string; pruned: string[] }> {
  const repo = openRepo(ctx.repo);
  const lock = await takeLock(repo, ctx.session, ctx.lockWaitMs ?? 10_000);
  try {
    const pointerText = readPointerText(repo);
    if (pointerText === null) throw new InputError({ message: 'there is no pointer to snapshot yet', expected: 'a run under way: `autopilot next` first' });
    const flows = await loadRepoFlows(repo, false);
    const loaded = await readState(repo, flows);
    const shot = snapshot(note || 'checkpoint', note, ctx.now(), loaded.lastSeq, pointerText);
    commit(
      repo,
      lock,
      loaded.lastSeq,
      { entries: [], files: [{ path: shot.path(repo), text: JSON.stringify(shot.body, null, 2) + '\n' }] },
      { session: ctx.session, now: ctx.now },
    );
    return { id: shot.body.id, pruned: prune(repo, ctx.now()) };
  } finally {
    lock.release();
  }
}

/** `autopilot restore ID`: the pointer as it was then, journaled as the new record; the journal keeps everything since. */
export async function runRestore(ctx: Context, id: string): Promise<{ id: string; position: Position }> {
  const repo = openRepo(ctx.repo);
  const checkpoint = readCheckpoint(repo, id);
  let restored: ReturnType<typeof parsePointer>;
  try {
    restored = parsePointer(checkpoint.pointer, `checkpoint ${id}`);
  } catch (error) {
    if (error instanceof InputError) throw new InputError(error.problems, 'The checkpoint holds a pointer autopilot cannot read; choose another.');
    throw error;
  }
  const flows = await loadRepoFlows(repo, true);
  const lock = await takeLock(repo, ctx.session, ctx.lockWaitMs ?? 10_000);
  try {
    const loaded = await readState(repo, flows);
    const position = restored.position;
    if (position.flow !== loaded.flow.id) {
      throw new InputError({
        message: `checkpoint ${id} is of the flow ${position.flow}, and this run is ${loaded.flow.id}`,
        expected: 'a checkpoint of this run',
      });
    }
    const { lastSeq } = loaded;
    const plan = pointerPlan({ ...loaded, pointer: { ...restored, lastAction: loaded.pointer?.lastAction } as typeof restored }, position);
    commit(
      repo,
      lock,
      lastSeq,
      { entries: [entry('checkpoint_restored', position, { checkpoint: id, journal_then: checkpoint.seq })], pointer: plan, flowHash: loaded.flow.hash },
      { session: ctx.session, now: ctx.now },
    );
    return { id, position };
  } finally {
    lock.release();
  }
}
