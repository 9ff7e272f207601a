import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkpointId } from '../../../src/engine/checkpoint-id.js';
import { CHECKPOINT_RETENTION, retain, retentionClock, type CheckpointRef } from '../../../src/engine/retention.js';

const HOUR = 60 * 60 * 1000;
const DAY = 24 * HOUR;
const utcDay = (date: Date) => date.toISOString().slice(0, 10);

/** Checkpoints spread over the 60 days before `now` and a few hours after it (a clock set back), some at the same moment. */
const scenario = fc
  .record({
    now: fc.date({ min: new Date('2001-01-01T00:00:00Z'), max: new Date('2090-01-01T00:00:00Z'), noInvalidDate: true }),
    offsets: fc.array(fc.oneof(fc.integer({ min: -3 * HOUR, max: 60 * DAY }), fc.constantFrom(0, HOUR, DAY, DAY - 1, 29 * DAY, 30 * DAY)), {
      maxLength: 150,
      size: 'max',
    }),
  })
  .map(({ now, offsets }) => ({
    now,
    checkpoints: offsets.map((offset, i): CheckpointRef => ({ id: `c${String(i).padStart(3, '0')}`, at: new Date(now.getTime() - offset) })),
  }));

/** What the policy says, written out the long way. */
function expectedKeep(checkpoints: CheckpointRef[], now: Date): Set<string> {
  const newestFirst = [...checkpoints].sort((a, b) => b.at.getTime() - a.at.getTime() || b.id.localeCompare(a.id));
  const keep = new Set(newestFirst.slice(0, CHECKPOINT_RETENTION.newest).map((c) => c.id));
  const oldestDay = utcDay(new Date(now.getTime() - (CHECKPOINT_RETENTION.dailyDays - 1) * DAY));
  const days = new Set<string>();
  for (const c of newestFirst) {
    const day = utcDay(c.at);
    if (day >= oldestDay && !days.has(day)) {
      days.add(day);
      keep.add(c.id);
    }
  }
  return keep;
}

describe('retain, for any checkpoints', () => {
  it('keeps exactly the 24 newest and the newest of each UTC day of the last 30, and prunes every other one', () => {
    fc.assert(
      fc.property(scenario, ({ checkpoints, now }) => {
        const { keep, prune } = retain(checkpoints, now);
        expect(new Set(keep)).toEqual(expectedKeep(checkpoints, now));
        expect([...keep, ...prune].sort()).toEqual(checkpoints.map((c) => c.id).sort());
        expect(keep.length).toBeLessThanOrEqual(CHECKPOINT_RETENTION.newest + CHECKPOINT_RETENTION.dailyDays);
      }),
    );
  });

  it('does not depend on the order of its input', () => {
    fc.assert(
      fc.property(
        scenario.chain(({ checkpoints, now }) =>
          fc
            .shuffledSubarray(checkpoints, { minLength: checkpoints.length, maxLength: checkpoints.length })
            .map((shuffled) => ({ checkpoints, shuffled, now })),
        ),
        ({ checkpoints, shuffled, now }) => {
          expect(retain(shuffled, now)).toEqual(retain(checkpoints, now));
        },
      ),
    );
  });

  it('lists both sides newest first', () => {
    fc.assert(
      fc.property(scenario, ({ checkpoints, now }) => {
        const at = new Map(checkpoints.map((c) => [c.id, c.at.getTime()]));
        for (const side of Object.values(retain(checkpoints, now))) {
          const times = side.map((id) => at.get(id)!);
          expect(times).toEqual([...times].sort((a, b) => b - a));
        }
      }),
    );
  });

  it('prunes nothing more when run again on what it kept', () => {
    fc.assert(
      fc.property(scenario, ({ checkpoints, now }) => {
        const { keep } = retain(checkpoints, now);
        const kept = checkpoints.filter((c) => keep.includes(c.id));
        expect(retain(kept, now)).toEqual({ keep, prune: [] });
      }),
    );
  });

  it('keeps the same set whether it prunes after every checkpoint or once at the end', () => {
    fc.assert(
      fc.property(scenario, ({ checkpoints, now }) => {
        const chronological = checkpoints.filter((c) => c.at <= now).sort((a, b) => a.at.getTime() - b.at.getTime() || a.id.localeCompare(b.id));
        let alive: CheckpointRef[] = [];
        for (const checkpoint of chronological) {
          alive.push(checkpoint);
          const { keep } = retain(alive, checkpoint.at);
          alive = alive.filter((c) => keep.includes(c.id));
        }
        const { keep } = retain(alive, now);
        expect(keep).toEqual(retain(chronological, now).keep);
      }),
    );
  });
});

describe('retain, case by case', () => {
  const now = new Date('2026-04-22T18:30:00Z');

  it('keeps everything while there are at most 24', () => {
    const old = Array.from({ length: 24 }, (_, i): CheckpointRef => ({ id: `old-${i}`, at: new Date(now.getTime() - (400 + i) * DAY) }));
    expect(retain(old, now)).toEqual({ keep: old.map((c) => c.id), prune: [] });
    expect(retain([], now)).toEqual({ keep: [], prune: [] });
  });

  it('counts today as the first of the 30 days, in UTC: the 30th day back is in, the 31st is out', () => {
    const newest = Array.from({ length: 24 }, (_, i): CheckpointRef => ({ id: `new-${String(i).padStart(2, '0')}`, at: new Date(now.getTime() - i * 60_000) }));
    const day29 = { id: 'day-29-back', at: new Date('2026-03-24T00:00:00Z') };
    const day30 = { id: 'day-30-back', at: new Date('2026-03-23T23:59:59.999Z') };
    const { keep, prune } = retain([...newest, day29, day30], now);
    expect(keep).toContain('day-29-back');
    expect(prune).toEqual(['day-30-back']);
  });

  it('keeps the newest of a day, and an id listed twice once', () => {
    const newest = Array.from({ length: 24 }, (_, i): CheckpointRef => ({ id: `new-${String(i).padStart(2, '0')}`, at: new Date(now.getTime() - i * 60_000) }));
    const morning = { id: 'morning', at: new Date('2026-04-10T08:00:00Z') };
    const evening = { id: 'evening', at: new Date('2026-04-10T20:00:00Z') };
    const result = retain([morning, ...newest, evening, { ...evening }], now);
    expect(result.keep).toEqual([...newest.map((c) => c.id), 'evening']);
    expect(result.prune).toEqual(['morning']);
  });

  it('keeps a checkpoint dated after now (a clock set back), and prunes one with no valid date unless it is among the newest', () => {
    const future = { id: 'future', at: new Date(now.getTime() + 3 * DAY) };
    const broken = { id: 'broken', at: new Date(Number.NaN) };
    expect(retain([broken, future], now)).toEqual({ keep: ['future', 'broken'], prune: [] });
    const many = Array.from({ length: 30 }, (_, i): CheckpointRef => ({ id: `c-${String(i).padStart(2, '0')}`, at: new Date(now.getTime() - i * HOUR) }));
    expect(retain([broken, future, ...many], now).prune).toContain('broken');
    expect(retain([broken, future, ...many], now).keep).toContain('future');
  });

  it('refuses a `now` that is not a date rather than pruning a month of checkpoints', () => {
    expect(() => retain([{ id: 'a', at: now }], new Date(Number.NaN))).toThrow(RangeError);
  });
});

describe('forty days of checkpoints, pruned as they are made', () => {
  it('6 a day for 40 days keeps 50 of 240: the 24 newest (the last 4 days) and the newest of each of the 26 days before them within the 30', () => {
    const start = Date.UTC(2026, 0, 1);
    const alive: CheckpointRef[] = [];
    let made = 0;
    let last = new Date(start);
    for (let day = 0; day < 40; day++) {
      for (let hour = 0; hour < 24; hour += 4) {
        last = new Date(start + day * DAY + hour * HOUR);
        alive.push({ id: checkpointId(last, `day ${day + 1} ${hour}h`), at: last });
        made++;
        const { prune } = retain(alive, last);
        for (const id of prune)
          alive.splice(
            alive.findIndex((c) => c.id === id),
            1,
          );
      }
    }
    expect(made).toBe(240);
    expect(alive).toHaveLength(50);

    const byTime = (a: CheckpointRef, b: CheckpointRef) => b.at.getTime() - a.at.getTime();
    const kept = [...alive].sort(byTime);
    // Days 37 to 40: every checkpoint.
    expect(kept.slice(0, 24).map((c) => utcDay(c.at))).toEqual(['2026-02-09', '2026-02-08', '2026-02-07', '2026-02-06'].flatMap((d) => Array(6).fill(d)));
    // Days 11 to 36: the 20:00 one of each; days 1 to 10 are more than 30 days back.
    const daily = kept.slice(24);
    expect(daily.map((c) => c.at.toISOString().slice(11, 16))).toEqual(Array(26).fill('20:00'));
    expect(daily.map((c) => utcDay(c.at))).toEqual(Array.from({ length: 26 }, (_, i) => utcDay(new Date(start + (35 - i) * DAY))));
    expect(utcDay(daily[25]!.at)).toBe('2026-01-11');
    // And the same set as pruning once, at the end.
    expect(retain(alive, last)).toEqual({ keep: kept.map((c) => c.id), prune: [] });
  });
});

describe('the clock retention judges by (issue 16: a clock far ahead prunes nothing by itself)', () => {
  const d = (iso: string) => new Date(iso);
  it('is now when now is within a day of the newest earlier checkpoint, else that checkpoint plus a day', () => {
    expect(retentionClock(d('2026-11-02T10:00:00Z'), [d('2026-11-01T12:00:00Z')])).toEqual(d('2026-11-02T10:00:00Z'));
    expect(retentionClock(d('2026-12-02T10:00:00Z'), [d('2026-11-01T12:00:00Z'), d('2026-10-01T00:00:00Z')])).toEqual(d('2026-11-02T12:00:00Z'));
    expect(retentionClock(d('2026-11-02T10:00:00Z'), [])).toEqual(d('2026-11-02T10:00:00Z'));
  });
});
