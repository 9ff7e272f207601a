import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkpointId, parseCheckpointId, safeLabel } from '../../../src/engine/checkpoint-id.js';
import { CHECKPOINT_LABEL_MAX_LENGTH } from '../../../src/limits.js';

const anyDate = fc.date({ min: new Date('0000-01-01T00:00:00.000Z'), max: new Date('9999-12-31T23:59:59.999Z'), noInvalidDate: true });

describe('checkpointId', () => {
  it('is the ISO time without colons, then the label', () => {
    expect(checkpointId(new Date('2026-04-22T18:00:05.123Z'), 'Before deploy')).toBe('2026-04-22T180005.123Z-before-deploy');
  });

  it('parses back to the same time and label, for any date and any text', () => {
    fc.assert(
      fc.property(anyDate, fc.string({ unit: 'grapheme', maxLength: 80 }), (at, text) => {
        const id = checkpointId(at, text);
        expect(id).not.toContain(':');
        expect(parseCheckpointId(id)).toEqual({ at, label: safeLabel(text) });
      }),
    );
  });

  it('sorts by time as text', () => {
    fc.assert(
      fc.property(anyDate, anyDate, (a, b) => {
        const [x, y] = [checkpointId(a, 'z'), checkpointId(b, 'a')];
        if (a.getTime() < b.getTime()) expect(x < y).toBe(true);
      }),
    );
  });

  it('refuses a date that cannot name a checkpoint', () => {
    expect(() => checkpointId(new Date(Number.NaN), 'x')).toThrow(RangeError);
    expect(() => checkpointId(new Date('+010000-01-01T00:00:00Z'), 'x')).toThrow(RangeError);
    expect(() => checkpointId(new Date('-000001-01-01T00:00:00Z'), 'x')).toThrow(RangeError);
  });
});

describe('safeLabel', () => {
  it.each([
    ['Before Deploy (v2)!', 'before-deploy-v2'],
    ['  --hourly--  ', 'hourly'],
    ['Übergang', 'ubergang'],
    ['café crème', 'cafe-creme'],
    ['../../etc/passwd', 'etc-passwd'],
    ['a\nb\tc', 'a-b-c'],
    ['', 'checkpoint'],
    ['!!!', 'checkpoint'],
    ['日本語', 'checkpoint'],
    ['x'.repeat(100), 'x'.repeat(CHECKPOINT_LABEL_MAX_LENGTH)],
    [`${'a'.repeat(39)} b`, 'a'.repeat(39)],
  ])('%j → %s', (text, label) => {
    expect(safeLabel(text)).toBe(label);
  });

  it('is always lowercase letters, digits and single inner dashes, at most 40 characters', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (text) => {
        const label = safeLabel(text);
        expect(label).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
        expect(label.length).toBeLessThanOrEqual(CHECKPOINT_LABEL_MAX_LENGTH);
        expect(safeLabel(label)).toBe(label);
      }),
    );
  });
});

describe('parseCheckpointId', () => {
  it.each([
    '',
    'checkpoint_20251014_180000',
    '2026-04-22T18:00:05.123Z-x',
    '2026-04-22T180005Z-x',
    '2026-04-22T180005.123Z',
    '2026-04-22T180005.123Z-',
    '2026-04-22T180005.123Z-Upper',
    '2026-04-22T180005.123Z-double--dash',
    '2026-04-22T180005.123Z--x',
    `2026-04-22T180005.123Z-${'x'.repeat(41)}`,
    '2026-02-30T120000.000Z-not-a-day',
    '2026-04-22T250000.000Z-not-an-hour',
    '2026-04-22T180005.123Z-x.json',
  ])('refuses %j', (id) => {
    expect(parseCheckpointId(id)).toBeUndefined();
  });
});
