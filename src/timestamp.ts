/**
 * A moment as the journal, the pointer and the lease write it:
 * `2026-11-26T14:15:12.476Z`, what `Date.prototype.toISOString` gives.
 * Worked out by arithmetic, because the first `toISOString` of a process
 * has V8 set up its date cache and read the local time zone (0.3 to 1 ms,
 * more with `$TZ` set), and a writing command would pay that on every call.
 * Pure, so every layer may use it, beside hash.ts and errors.ts.
 */

const DAY_MS = 86_400_000;
/** 0001-01-01 and 9999-12-31T23:59:59.999Z: four-digit years; `Date` writes any other year its own way. */
const FIRST_MS = -62_135_596_800_000;
const LAST_MS = 253_402_300_799_999;

const two = (n: number) => (n < 10 ? `0${n}` : `${n}`);
const three = (n: number) => (n < 10 ? `00${n}` : n < 100 ? `0${n}` : `${n}`);

export function isoTime(at: Date | number): string {
  const ms = typeof at === 'number' ? at : at.getTime();
  if (!Number.isInteger(ms) || ms < FIRST_MS || ms > LAST_MS) return new Date(ms).toISOString();
  const days = Math.floor(ms / DAY_MS);
  let rest = ms - days * DAY_MS;
  // The civil date of a day count from 1970-01-01, in 400-year eras of March-first years (H. Hinnant's days_from_civil, inverted).
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const dayOfEra = z - era * 146_097;
  const yearOfEra = Math.floor((dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365);
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const m = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * m + 2) / 5) + 1;
  const month = m < 10 ? m + 3 : m - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  const hours = Math.floor(rest / 3_600_000);
  rest -= hours * 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  rest -= minutes * 60_000;
  const seconds = Math.floor(rest / 1000);
  return `${String(year).padStart(4, '0')}-${two(month)}-${two(day)}T${two(hours)}:${two(minutes)}:${two(seconds)}.${three(rest - seconds * 1000)}Z`;
}
