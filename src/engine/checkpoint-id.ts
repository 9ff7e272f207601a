/**
 * A checkpoint's id, which is also its file name under
 * `_docs/_autopilot/checkpoints/`: the UTC time in ISO form without its
 * colons (which Windows refuses in file names), then a short label:
 * `2026-04-22T180000.000Z-before-deploy`. Ids sort by time as text.
 */
import { CHECKPOINT_LABEL_MAX_LENGTH } from '../limits.js';
import { isoTime } from '../timestamp.js';

const FALLBACK_LABEL = 'checkpoint';
const ID = /^(\d{4})-(\d{2})-(\d{2})T(\d{2})(\d{2})(\d{2})\.(\d{3})Z-([a-z0-9]+(?:-[a-z0-9]+)*)$/;

/**
 * Any text → lowercase letters, digits and single dashes, at most `CHECKPOINT_LABEL_MAX_LENGTH`
 * characters: `Before Deploy (v2)!` → `before-deploy-v2`. Accents are dropped
 * (`Übergang` → `ubergang`); text with nothing usable becomes `checkpoint`.
 */
export function safeLabel(text: string): string {
  const label = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, CHECKPOINT_LABEL_MAX_LENGTH)
    .replace(/-$/, '');
  return label || FALLBACK_LABEL;
}

/** Throws a RangeError for an invalid date or a year outside 0–9999 (the id would not sort). */
export function checkpointId(at: Date, label: string): string {
  const year = at.getUTCFullYear();
  if (Number.isNaN(at.getTime()) || year < 0 || year > 9999) throw new RangeError(`checkpointId: ${String(at)} cannot name a checkpoint`);
  return `${isoTime(at).replaceAll(':', '')}-${safeLabel(label)}`;
}

/** The time and label of an id `checkpointId` made; undefined for any other text. */
export function parseCheckpointId(id: string): { at: Date; label: string } | undefined {
  const match = ID.exec(id);
  if (!match) return undefined;
  const [, year, month, day, hour, minute, second, millis, label] = match;
  if (label!.length > CHECKPOINT_LABEL_MAX_LENGTH) return undefined;
  const iso = `${year}-${month}-${day}T${hour}:${minute}:${second}.${millis}Z`;
  const at = new Date(iso);
  // `Date` rolls 2026-02-30 over to March; an id naming a day that does not exist is not one of ours.
  if (Number.isNaN(at.getTime()) || isoTime(at) !== iso) return undefined;
  return { at, label: label! };
}
