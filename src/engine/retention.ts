/**
 * Which checkpoints to keep: the 24 newest, and the newest of each UTC
 * calendar day for the last 30 days (today and the 29 days before it); the
 * rest are pruned. Pure: the caller lists the checkpoints and passes the time.
 *
 * Pruning as checkpoints are made, or once at the end, keeps the same set
 * (when they are made in time order): what a rule keeps now it also kept at
 * every earlier call, and a kept checkpoint is never a reason to drop another.
 */

export interface CheckpointRef {
  id: string;
  at: Date;
}

export interface RetentionPolicy {
  /** The newest this many are kept whatever their age. */
  newest: number;
  /** Calendar days (UTC, today included) in which the newest checkpoint of each day is kept. */
  dailyDays: number;
}

export const CHECKPOINT_RETENTION: RetentionPolicy = { newest: 24, dailyDays: 30 };

const DAY_MS = 24 * 60 * 60 * 1000;
const utcDay = (time: number) => Math.floor(time / DAY_MS);

/**
 * `keep` and `prune` hold every distinct id once, newest first; the order of
 * the input does not matter. A checkpoint dated after `now` (a clock set back)
 * counts as recent; one whose date is invalid counts as the oldest.
 */
export function retain(checkpoints: readonly CheckpointRef[], now: Date, policy: RetentionPolicy = CHECKPOINT_RETENTION): { keep: string[]; prune: string[] } {
  // Without a valid time, the daily rule would keep nothing: refuse rather than prune a month of checkpoints.
  if (Number.isNaN(now.getTime())) throw new RangeError('retain: `now` is not a valid date');
  const time = (c: CheckpointRef) => {
    const t = c.at.getTime();
    return Number.isNaN(t) ? -Infinity : t;
  };
  // Newest first; equal times by id, so the answer never depends on the input order.
  const sorted = [...checkpoints].sort((a, b) => time(b) - time(a) || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
  const firstDay = utcDay(now.getTime()) - (policy.dailyDays - 1);
  const seen = new Set<string>();
  const daysKept = new Set<number>();
  const keep: string[] = [];
  const prune: string[] = [];
  for (const checkpoint of sorted) {
    // An id listed twice is one checkpoint; its newest date decides.
    if (seen.has(checkpoint.id)) continue;
    seen.add(checkpoint.id);
    const day = utcDay(time(checkpoint));
    const newestOfItsDay = Number.isFinite(day) && day >= firstDay && !daysKept.has(day);
    if (newestOfItsDay) daysKept.add(day);
    if (keep.length + prune.length < policy.newest || newestOfItsDay) keep.push(checkpoint.id);
    else prune.push(checkpoint.id);
  }
  return { keep, prune };
}

/**
 * The time the retention rule judges by: never ahead of the newest checkpoint
 * taken before this one by more than a day. A clock set 31 days fast (or a
 * month away from the project) then archives nothing by the calendar alone:
 * checkpoints age out only as newer ones arrive. Pure.
 */
export function retentionClock(now: Date, previous: readonly Date[]): Date {
  const times = previous.map((d) => d.getTime()).filter((t) => Number.isFinite(t) && t <= now.getTime());
  if (times.length === 0) return now;
  return new Date(Math.min(now.getTime(), Math.max(...times) + DAY_MS));
}
