/** Writes the pointer in its one canonical form: the contract's six lines, then what the engine adds. */
import type { Position } from './position.js';
import { POINTER_SCHEMA } from './parse-pointer.js';

export interface PointerExtras {
  /** Whether the flow loops, so the cycle is worth a line. */
  loops: boolean;
  /** Text a person wrote under the title, and sections a person added: kept verbatim. */
  preamble?: string;
  extraSections?: string;
}

export function serializePointer(position: Position, extras: PointerExtras): string {
  const oneLine = (value: string) => value.replace(/\s*[\r\n]+\s*/g, ' ').trim();
  const parts = [
    '# Autopilot State',
    '',
    ...(extras.preamble ? [extras.preamble.trim(), ''] : []),
    '## Current Step',
    `flow: ${position.flow}`,
    `step: ${position.step}`,
    `name: ${oneLine(position.name)}`,
    `status: ${position.status}`,
    `sub_step: ${oneLine(position.subStep) || '0'}`,
    `retry_count: ${position.retryCount}`,
    '',
  ];
  if (extras.loops) parts.push('## Cycle', `cycle: ${position.cycle}`, '');
  if (extras.extraSections) parts.push(extras.extraSections.trim(), '');
  parts.push(`<!-- autopilot-state v${POINTER_SCHEMA}: written by autopilot; \`autopilot check\` validates hand edits -->`, '');
  return parts.join('\n');
}
