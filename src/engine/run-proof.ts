/**
 * What a run's journal says each completed step's evidence is, and whether
 * the tree still holds it (docs/runs.md, "Commits, worktrees and merging
 * back"). Pure: the journal's entries in, each step's files and their blob
 * ids out; the shell reads the files and asks `judgeProof` with what it read.
 *
 * A step counts as done on record from its `step_completed` until something
 * later undoes it: its step starting again (a redo), a checkpoint restored to
 * before it, a run started over. Its files are the ones the progress commit
 * the same command owed names (`progress_commit_owed`: `judged` with the blob
 * id of each file the judges read, `files` by name only). A step whose
 * command owed no commit (`commit: false`) has no files on record: it is
 * named, never failed. A file passes with the bytes its step recorded or with
 * bytes a later step of the run recorded for it; content, never commit ids,
 * so a squash or a rebase holds. A file gone is lost; a file with other bytes
 * is named (changed), for a later step or a person may rewrite it unjudged.
 */
import type { StampedEntry } from '../formats/journal-line.js';

/** One completed step and its evidence as recorded: each path (from the root) with its blob id, or null when only its name was. */
export interface StepOnRecord {
  step: number;
  name: string;
  cycle: number;
  /** The `step_completed` event's seq. */
  seq: number;
  files: Map<string, string | null>;
  /** A progress commit was owed for it (its files are on record). */
  committed: boolean;
}

/** What the run's journal records: its completed steps, and every blob id recorded for each path, in order. */
export interface RunRecord {
  steps: StepOnRecord[];
  /** Each path's recorded blob ids with the seq of the line that recorded them. */
  versions: Map<string, { seq: number; blob: string }[]>;
}

/** Whether a path is a run's pointer or journal: the state every commit holds, not a step's evidence. */
const isState = (path: string) => path.endsWith('_autopilot_state.md') || path.endsWith('_autopilot/journal.jsonl');

const keyOf = (cycle: number, step: number) => `${cycle}:${step}`;

/** The run's completed steps and their files, folded from its journal (oldest first). */
export function runRecord(entries: readonly StampedEntry[]): RunRecord {
  const steps = new Map<string, StepOnRecord>();
  const versions = new Map<string, { seq: number; blob: string }[]>();
  let pending: StepOnRecord[] = [];
  for (const e of entries) {
    if (e.event === 'run_started') steps.clear();
    if (e.event === 'checkpoint_restored' && typeof e.journal_then === 'number') {
      const then = e.journal_then;
      for (const [key, s] of steps) if (s.seq > then) steps.delete(key);
    }
    if (e.event === 'step_started' && typeof e.step === 'number') steps.delete(keyOf(e.cycle, e.step));
    if (e.event === 'step_completed' && typeof e.step === 'number') {
      const done: StepOnRecord = { step: e.step, name: e.name, cycle: e.cycle, seq: e.seq, files: new Map(), committed: false };
      steps.set(keyOf(e.cycle, e.step), done);
      pending.push(done);
    }
    if (e.event === 'progress_commit_owed') {
      const files = ownFiles(e);
      for (const [path, blob] of files) if (blob) versions.set(path, [...(versions.get(path) ?? []), { seq: e.seq, blob }]);
      for (const done of pending) {
        done.committed = true;
        for (const [path, blob] of files) done.files.set(path, blob);
      }
    }
    // A command's batch ends with the entry that carries the pointer: its completions are settled.
    if ('pointer' in e && e.pointer !== undefined) pending = [];
  }
  return { steps: [...steps.values()].sort((a, b) => a.cycle - b.cycle || a.step - b.step), versions };
}

/** An owed commit's evidence: each judged file with its blob id, each other file it names (not the state) by name. */
function ownFiles(owed: Extract<StampedEntry, { event: 'progress_commit_owed' }>): Map<string, string | null> {
  const files = new Map<string, string | null>();
  for (const path of owed.files ?? []) if (!isState(path)) files.set(path, null);
  for (const [path, blob] of Object.entries(owed.judged ?? {})) if (!isState(path)) files.set(path, blob);
  return files;
}

/** A file of a completed step the tree no longer holds as recorded. */
export interface LostFile {
  path: string;
  why: 'missing' | 'changed';
}

/**
 * The proof for one run: steps whose evidence is in the tree, steps that lost
 * some (a file gone: what a merge or a revert drops), steps whose files hold
 * bytes no line of the run recorded (a later step or a person rewrote them
 * unjudged: existing-code's Update Docs touches the Document step's files),
 * steps with nothing on record to prove.
 */
export interface RunProof {
  run: string;
  proven: { step: number; name: string; cycle: number }[];
  lost: { step: number; name: string; cycle: number; files: LostFile[] }[];
  changed: { step: number; name: string; cycle: number; files: LostFile[] }[];
  /** Completed with no progress commit owed (`commit: false`): named, not failed. */
  unrecorded: { step: number; name: string; cycle: number }[];
}

/**
 * Judges a run's record against the tree: `blobOf(path, format)` gives the
 * blob id of the file's bytes now (the format of the id recorded), or
 * undefined when the file is gone; with no format (a file recorded by name
 * only), any string when it is there: nothing need be hashed.
 */
export function judgeProof(run: string, record: RunRecord, blobOf: (path: string, format?: 'sha1' | 'sha256') => string | undefined): RunProof {
  const proof: RunProof = { run, proven: [], lost: [], changed: [], unrecorded: [] };
  for (const s of record.steps) {
    const at = { step: s.step, name: s.name, cycle: s.cycle };
    if (!s.committed) {
      proof.unrecorded.push(at);
      continue;
    }
    const lost: LostFile[] = [];
    for (const [path, blob] of s.files) {
      const now = blobOf(path, blob === null ? undefined : blob.length === 64 ? 'sha256' : 'sha1');
      if (now === undefined) lost.push({ path, why: 'missing' });
      else if (blob !== null && !acceptable(record, path, blob, s.seq).has(now)) lost.push({ path, why: 'changed' });
    }
    const missing = lost.filter((f) => f.why === 'missing');
    const changed = lost.filter((f) => f.why === 'changed');
    if (missing.length > 0) proof.lost.push({ ...at, files: missing });
    if (changed.length > 0) proof.changed.push({ ...at, files: changed });
    if (lost.length === 0) proof.proven.push(at);
  }
  return proof;
}

/** The bytes a file may hold for a step recorded at `seq`: its own, or any a later line of the run recorded. */
function acceptable(record: RunRecord, path: string, blob: string, seq: number): Set<string> {
  return new Set([blob, ...(record.versions.get(path) ?? []).filter((v) => v.seq > seq).map((v) => v.blob)]);
}
