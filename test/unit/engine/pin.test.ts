/** Pinned runs (`engine/pin.ts`): what a changed flow file is said to have changed, without a disk. */
import { describe, expect, it } from 'vitest';
import { flowChanges } from '../../../src/engine/pin.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Flow } from '../../../src/formats/flow/model.js';
import { parseFlow } from '../../../src/formats/flow/parse-flow.js';
import { builtInFlow, ROOT } from '../../helpers/engine.js';

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

describe('flowChanges and the decisions', () => {
  const text = readFileSync(join(ROOT, 'flows/greenfield.md'), 'utf8');
  const parse = (t: string) => parseFlow(t, '.autopilot/flows/greenfield.md', 'greenfield').flow!;

  it('one line of prose added above the decisions moves them 2 lines down: 0 changes', () => {
    const moved = parse(text.replace('## Decisions\n', '## Decisions\n\nA person answers these.\n'));
    expect(moved.decisions['research-round']!.line).toBe(parse(text).decisions['research-round']!.line + 2);
    expect(flowChanges(parse(text), moved)).toEqual([]);
  });

  it('a decision whose recommendation changed is 1 change, the decisions', () => {
    const changed = parse(text.replace('Recommendation: B —', 'Recommendation: A —'));
    expect(flowChanges(parse(text), changed)).toEqual(['the decisions changed']);
  });
});
