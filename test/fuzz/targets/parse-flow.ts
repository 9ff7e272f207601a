/** `parseFlow` in process, behind the size check the loader makes before reading a file. */
import { parseFlow } from '../../../src/flow/parse-flow.js';
import { FLOW_MAX_BYTES } from '../../../src/limits.js';
import { saveText, type Target } from '../harness.js';
import { flowInput, type FlowInput } from './flow-input.js';
import { judge } from './verdicts.js';

const FILE = '.autopilot/flows/fuzzed.md';

export const parseFlowTarget: Target<FlowInput> = {
  name: 'parse-flow',
  share: 0.6,
  concurrency: 1,
  generate: (r) => flowInput(r),
  run: (input) => {
    if (Buffer.byteLength(input.text) > FLOW_MAX_BYTES) return { kind: 'refused' };
    const parsed = parseFlow(input.text, FILE, input.id);
    return judge({ value: parsed.flow, problems: parsed.problems }, FILE);
  },
  save: (input, dir) => saveText(dir, `${input.id}.md`, input.text),
};
