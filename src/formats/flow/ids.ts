/**
 * The one rule for flow ids, shared by the flow loader (file names), the front
 * matter's `id`, `init --flow` and the pointer's `flow:`: lowercase letters,
 * digits and dashes, not starting with a dash, at most 64 characters.
 */
import { FLOW_ID_MAX_LENGTH } from '../../limits.js';

const FLOW_ID = /^[a-z0-9][a-z0-9-]*$/;

/** The rule in words, for `expected:` lines. */
export const FLOW_ID_RULE = `lowercase letters, digits and dashes, not starting with a dash, at most ${FLOW_ID_MAX_LENGTH} characters`;

/** What is wrong with `text` as a flow id, or undefined when it is one. */
export function flowIdProblem(text: string): string | undefined {
  if (text === '') return 'it is empty';
  if (text.length > FLOW_ID_MAX_LENGTH) return `it is ${text.length} characters long (at most ${FLOW_ID_MAX_LENGTH})`;
  if (!FLOW_ID.test(text)) return 'it may hold only lowercase letters, digits and dashes, and may not start with a dash';
  return undefined;
}

export function isFlowId(text: string): boolean {
  return flowIdProblem(text) === undefined;
}
