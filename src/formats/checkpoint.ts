/**
 * A checkpoint file, `_docs/_autopilot/checkpoints/<id>.json`: the pointer as
 * it was written, the journal's last event then, and a note. Pure: text →
 * checkpoint or a problem; checkpoint → text.
 */
import type { Problem } from '../errors.js';
import { CHECKPOINT_MAX_BYTES } from '../limits.js';

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

export function parseCheckpoint(text: string, file: string): { checkpoint: Checkpoint } | { problem: Problem } {
  if (text.length > CHECKPOINT_MAX_BYTES)
    return { problem: { file, message: 'this checkpoint is too large to be one autopilot wrote', expected: `at most ${CHECKPOINT_MAX_BYTES} bytes` } };
  try {
    const data = JSON.parse(text) as Record<string, unknown>;
    if (typeof data.pointer !== 'string' || typeof data.seq !== 'number') throw new Error('shape');
    return {
      checkpoint: {
        id: String(data.id ?? ''),
        at: String(data.at ?? ''),
        note: typeof data.note === 'string' ? data.note : '',
        seq: data.seq,
        pointer: data.pointer,
      },
    };
  } catch {
    return { problem: { file, message: 'this checkpoint is not one autopilot wrote', expected: 'a JSON object with `pointer` and `seq`' } };
  }
}

export function serializeCheckpoint(checkpoint: Checkpoint): string {
  return JSON.stringify(checkpoint, null, 2) + '\n';
}
