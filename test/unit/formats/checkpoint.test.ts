/** A checkpoint file: the pointer, the journal's last event, a note, and the skills' own state files (seed 002). Pure. */
import { describe, expect, it } from 'vitest';
import { parseCheckpoint, serializeCheckpoint, type Checkpoint } from '../../../src/formats/checkpoint.js';

const FILE = '_docs/_autopilot/checkpoints/x.json';
const base: Checkpoint = { id: 'x', at: '2026-11-27T00:00:00.000Z', note: 'n', seq: 4, pointer: 'flow: greenfield\n' };

describe('checkpoint file', () => {
  it('round-trips with 2 skill state files, and without any (an older checkpoint)', () => {
    const withStates: Checkpoint = {
      ...base,
      skill_state: [
        { file: '_docs/02_document/state.json', text: '{"position":"3"}\n' },
        { file: '_docs/x/state.json', text: '{}' },
      ],
    };
    expect(parseCheckpoint(serializeCheckpoint(withStates), FILE)).toEqual({ checkpoint: withStates });
    expect(parseCheckpoint(serializeCheckpoint(base), FILE)).toEqual({ checkpoint: base });
  });

  it.each([
    ['not a list', { file: 'a', text: 'b' }],
    ['an entry without text', [{ file: 'a' }]],
    ['a text that is not a string', [{ file: 'a', text: 1 }]],
  ])('refuses skill_state that is %s, naming the file (3 cases)', (_what, skill_state) => {
    const parsed = parseCheckpoint(JSON.stringify({ ...base, skill_state }), FILE);
    expect(parsed).toMatchObject({ problem: { file: FILE, message: 'this checkpoint is not one autopilot wrote' } });
  });
});
