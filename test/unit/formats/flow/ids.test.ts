import { describe, expect, it } from 'vitest';
import { flowIdProblem, isFlowId } from '../../../../src/formats/flow/ids.js';
import { FLOW_ID_MAX_LENGTH } from '../../../../src/limits.js';

describe('the flow id rule', () => {
  it('takes lowercase letters, digits and dashes, not starting with a dash, up to the length limit', () => {
    for (const id of ['greenfield', 'existing-code', 'bug-fix-2', '9', 'a'.repeat(FLOW_ID_MAX_LENGTH)]) expect(isFlowId(id), id).toBe(true);
  });

  it('says what is wrong with anything else', () => {
    expect(flowIdProblem('')).toBe('it is empty');
    expect(flowIdProblem('a'.repeat(FLOW_ID_MAX_LENGTH + 1))).toBe(`it is ${FLOW_ID_MAX_LENGTH + 1} characters long (at most ${FLOW_ID_MAX_LENGTH})`);
    for (const id of ['My_Flow', 'UPPER', '-dash', 'a b', 'ok.v2', 'émoji', 'a\n']) expect(flowIdProblem(id), id).toMatch(/may hold only/);
  });
});
