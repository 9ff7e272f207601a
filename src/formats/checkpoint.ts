/**
 * A checkpoint file, `_docs/_autopilot/checkpoints/<id>.json`: the pointer as
 * it was written, the journal's last event then, a note, and the skills' own
 * state files then (seed 002). Pure: text → checkpoint or a problem;
 * checkpoint → text.
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
  /** The skills' own state files as they were (repository-relative path, bytes); absent in older checkpoints and where no skill keeps one. */
  skill_state?: { file: string; text: string }[];
}

const isStateFile = (v: unknown): v is { file: string; text: string } =>
  typeof v === 'object' && v !== null && typeof (v as { file?: unknown }).file === 'string' && typeof (v as { text?: unknown }).text === 'string';

export function parseCheckpoint(text: string, file: string): { checkpoint: Checkpoint } | { problem: Problem } {
  if (text.length > CHECKPOINT_MAX_BYTES)
    return { problem: { file, message: 'this checkpoint is too large to be one autopilot wrote', expected: `at most ${CHECKPOINT_MAX_BYTES} bytes` } };
  try {
    const data = JSON.parse(text) as Record<string, unknown>;
    if (typeof data.pointer !== 'string' || typeof data.seq !== 'number') throw new Error('shape');
    const states = data.skill_state;
    if (states !== undefined && !(Array.isArray(states) && states.every(isStateFile))) throw new Error('shape');
    return {
      checkpoint: {
        id: String(data.id ?? ''),
        at: String(data.at ?? ''),
        note: typeof data.note === 'string' ? data.note : '',
        seq: data.seq,
        pointer: data.pointer,
        ...(states && states.length > 0 ? { skill_state: states.map((s) => ({ file: s.file, text: s.text })) } : {}),
      },
    };
  } catch {
    return {
      problem: {
        file,
        message: 'this checkpoint is not one autopilot wrote',
        expected: 'a JSON object with `pointer` and `seq` (and `skill_state`, a list of `file` and `text`)',
      },
    };
  }
}

export function serializeCheckpoint(checkpoint: Checkpoint): string {
  return JSON.stringify(checkpoint, null, 2) + '\n';
}
