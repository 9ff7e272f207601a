/** Writes the pointer in its one canonical form: the contract's six lines, then what the engine adds. */
import { isBidiControl } from '../bidi.js';
import { hashText } from '../../hash.js';
import type { Position } from './position.js';
import { HELD_EDIT_TITLE, POINTER_SCHEMA, type LastAction } from './parse-pointer.js';
import type { HeldEdit } from '../journal-line.js';
import { FREE_TEXT_MAX_LENGTH } from '../../limits.js';

export interface PointerExtras {
  /** Whether the flow loops, so the cycle is worth a line. */
  loops: boolean;
  /** Text a person wrote under the title, and sections a person added: kept verbatim. */
  preamble?: string;
  extraSections?: string;
  /** The journal event this pointer reflects: named in the schema marker with a hash of the position. */
  seq?: number;
  /** What the command that wrote it did (rewritten on every change). */
  lastAction?: LastAction;
  /**
   * A hand edit held for a person: shown in `## Held Edit` (and carried by the
   * journal's pointer record). `null`: the plan drops it (adopted or
   * dismissed); absent: the transaction keeps whatever is held.
   */
  held?: HeldEdit | null;
}

/**
 * Free text from an agent or a person on one line, unable to forge anything:
 * no line breaks, no control characters (bidirectional ones included), no
 * comment fences.
 */
export function oneLine(value: string, max = FREE_TEXT_MAX_LENGTH): string {
  let out = '';
  for (const ch of value) {
    const code = ch.codePointAt(0)!;
    out += code < 0x20 || (code >= 0x7f && code < 0xa0) || code === 0x2028 || code === 0x2029 || isBidiControl(code) ? ' ' : ch;
  }
  out = out.replace(/\s+/g, ' ').trim().replaceAll('<!--', '<!-').replaceAll('-->', '->');
  return out.length > max ? `${out.slice(0, max - 1)}…` : out;
}

/** Eight hex digits naming a position exactly: a hand edit changes it. */
export function positionHash(p: Position): string {
  return hashText(positionText(p)).slice(0, 8);
}

/** The text `positionHash` hashes: every field of the position. */
export const positionText = (p: Position): string => [p.flow, p.step, p.name, p.status, p.subStep, p.retryCount, p.cycle].join('\u0000');

/** The position as the file will hold it: what a re-read gives back. */
export function canonicalPosition(p: Position): Position {
  return { ...p, name: oneLine(p.name), subStep: oneLine(p.subStep) || '0' };
}

/**
 * `## Held Edit`: the fields the held hand edit changed, why it is held, and
 * the two ways out. Only shown: what is held is the journal's record.
 */
function heldSection(held: HeldEdit): string[] {
  const fields = Object.entries(held.edited).map(([key, v]) => `${key} ${String(v.was)} → ${String(v.now)}`);
  return [
    `## ${HELD_EDIT_TITLE}`,
    `edited: ${oneLine(fields.join(', ') || 'the pointer')}`,
    ...held.gates.map((gate) => `held: ${oneLine(gate)}`),
    'The run stays at Current Step above. A person adopts the edit with `autopilot adopt`; deleting this section drops it.',
  ];
}

export function serializePointer(position: Position, extras: PointerExtras): string {
  const p = canonicalPosition(position);
  const parts = [
    '# Autopilot State',
    '',
    ...(extras.preamble ? [extras.preamble.trim(), ''] : []),
    '## Current Step',
    `flow: ${p.flow}`,
    `step: ${p.step}`,
    `name: ${p.name}`,
    `status: ${p.status}`,
    `sub_step: ${p.subStep}`,
    `retry_count: ${p.retryCount}`,
    '',
  ];
  if (extras.loops) parts.push('## Cycle', `cycle: ${p.cycle}`, '');
  if (extras.lastAction) {
    const a = extras.lastAction;
    parts.push('## Last Action', `action: ${oneLine(a.action)}`, `result: ${a.result}`, `at: ${oneLine(a.at)}`, `next: ${oneLine(a.next)}`, '');
  }
  if (extras.held) parts.push(...heldSection(extras.held), '');
  if (extras.extraSections) parts.push(extras.extraSections.trim(), '');
  const record = extras.seq === undefined ? '' : ` · event ${extras.seq} · ${positionHash(p)}`;
  parts.push(`<!-- autopilot-state v${POINTER_SCHEMA}${record}: written by autopilot; \`autopilot check\` validates hand edits -->`, '');
  return parts.join('\n');
}
