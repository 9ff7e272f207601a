/**
 * Whether an entry read back from a flow cache is what the parser would have
 * written. The repository's cache is a file in the repository, so it is
 * untrusted like the flow itself: an entry of the wrong shape, or a flow the
 * parser would have refused, is treated as a cache miss and the flow is
 * parsed again.
 */
import { validateFlow } from './validate-flow.js';
import { patternProblem } from './patterns.js';
import type { CachedFlow, CachedParse, CachedProblem } from './flow-cache.js';
import type { Decision, Runs, Step, Then } from './model.js';

type Fields = Record<string, unknown>;

const isObject = (v: unknown): v is Fields => typeof v === 'object' && v !== null && !Array.isArray(v);
const isString = (v: unknown): v is string => typeof v === 'string';
const isLine = (v: unknown): v is number => Number.isInteger(v) && (v as number) >= 0;
const isStrings = (v: unknown): v is string[] => Array.isArray(v) && v.every(isString);
const optionalString = (v: unknown) => v === undefined || isString(v);

function isRuns(v: unknown): v is Runs {
  return isObject(v) && (v.kind === 'always' || v.kind === 'optional' || (v.kind === 'if' && isString(v.pattern) && !patternProblem(v.pattern)));
}

function isThen(v: unknown): v is Then {
  if (!isObject(v)) return false;
  if (v.kind === 'next' || v.kind === 'boundary' || v.kind === 'end') return true;
  if (v.kind === 'decision') return isString(v.id);
  return v.kind === 'loop' && Number.isInteger(v.to);
}

function isStep(v: unknown, index: number): v is Step {
  return (
    isObject(v) &&
    v.number === index + 1 &&
    isString(v.name) &&
    isString(v.skill) &&
    isString(v.subSteps) &&
    isStrings(v.doneWhen) &&
    v.doneWhen.length > 0 &&
    v.doneWhen.every((p) => !patternProblem(p)) &&
    isRuns(v.runs) &&
    isThen(v.then) &&
    isLine(v.line)
  );
}

function isDecision(v: unknown, id: string): v is Decision {
  if (!isObject(v) || v.id !== id || !isString(v.question) || !isLine(v.line) || !Array.isArray(v.options)) return false;
  const options = v.options as unknown[];
  const lettered = options.every((o, i) => isObject(o) && o.letter === 'ABCD'[i] && isString(o.choice) && (o.then === 'continue' || o.then === 'repeat'));
  const recommendation = v.recommendation;
  return (
    lettered &&
    options.length >= 2 &&
    options.length <= 4 &&
    isObject(recommendation) &&
    isString(recommendation.reason) &&
    options.some((o) => (o as Fields).letter === recommendation.letter)
  );
}

function isFlow(v: unknown, id: string): v is CachedFlow {
  if (!isObject(v) || v.id !== id || !isString(v.title) || !Number.isInteger(v.scanOrder) || !isString(v.hash)) return false;
  const { detect, steps, decisions } = v;
  if (!isObject(detect) || !isStrings(detect.any) || !isStrings(detect.none) || [...detect.any, ...detect.none].some((p) => patternProblem(p, true)))
    return false;
  if (!Array.isArray(steps) || steps.length === 0 || !steps.every(isStep)) return false;
  if (!isObject(decisions) || !Object.entries(decisions).every(([key, d]) => isDecision(d, key))) return false;
  // The checks the parser makes on the flow as a whole: decisions named and declared, loops, `{cycle}`, shared patterns.
  return validateFlow({ ...(v as unknown as CachedFlow), file: '' }).length === 0;
}

function isProblem(v: unknown): v is CachedProblem {
  return isObject(v) && isString(v.message) && (v.line === undefined || isLine(v.line)) && optionalString(v.expected) && optionalString(v.received);
}

/** `id` is the flow id of the cache key: an entry may only stand for the file it was made from. */
export function isCachedParse(entry: unknown, id: string): entry is CachedParse {
  if (!isObject(entry)) return false;
  if ('flow' in entry) return isFlow(entry.flow, id);
  return Array.isArray(entry.problems) && entry.problems.length > 0 && entry.problems.every(isProblem);
}
