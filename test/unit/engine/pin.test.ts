/** Pinned runs (`engine/pin.ts`): what a changed flow file is said to have changed, without a disk. */
import { describe, expect, it } from 'vitest';
import { flowChanges } from '../../../src/engine/pin.js';
import type { Flow } from '../../../src/flow/model.js';
import { builtInFlow } from '../../helpers/engine.js';

/** The built-in greenfield flow as an autopilot older than `checkpoint_before` pinned it: no key at all. */
function pinnedBeforeTheKey(): Flow {
  const { checkpointBefore: _, ...flow } = builtInFlow('greenfield');
  return flow;
}

describe('flowChanges and checkpoint_before', () => {
  it('a run pinned before the key, against the flow that marks Deploy: 1 change, the marked steps, and no step changed', () => {
    expect(flowChanges(pinnedBeforeTheKey(), builtInFlow('greenfield'))).toEqual(['checkpoint_before changed (none → Deploy)']);
  });

  it('the same names on other lines (the front matter reworded) are no change', () => {
    const current = builtInFlow('greenfield');
    const moved: Flow = { ...current, checkpointBefore: [{ step: 'Deploy', line: 12 }] };
    expect(flowChanges(moved, current)).toEqual([]);
  });
});
