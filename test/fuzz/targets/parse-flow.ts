/** `parseFlow` in process, on the built-in flows mutated and on text made from nothing. */
import { parseFlow } from '../../../src/formats/flow/parse-flow.js';
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
    const parsed = parseFlow(input.text, FILE, input.id);
    return judge({ value: parsed.flow, problems: parsed.problems }, FILE);
  },
  save: (input, dir) => saveText(dir, `${input.id}.md`, input.text),
};
