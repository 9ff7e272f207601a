/**
 * The fuzz harness. A target turns a seeded generator into an input and runs
 * it; the runner times each case and sorts it into accepted, refused (a clean
 * problem, or exit 2), crash (an exception, a malformed answer, any other exit
 * code) or slow (over one second). Targets are registered in `targets/index.ts`.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { caseSeed, rng, type Rng } from './rng.js';

export type Verdict = { kind: 'accepted' } | { kind: 'refused' } | { kind: 'crash'; detail: string };

export interface Target<I = unknown> {
  name: string;
  /** Share of a run's cases this target gets when no target is named (process targets are slow: a small share). */
  share: number;
  /** Cases run at once: 1 in process, 2 for targets that spawn a process each. */
  concurrency: number;
  generate(r: Rng): I;
  run(input: I): Promise<Verdict> | Verdict;
  /** Writes the input where a person can replay it; returns the path. */
  save(input: I, dir: string): string;
  /** Frees what `generate` made (temporary folders). */
  dispose?(input: I): void;
}

export const SLOW_MS = 1_000;
const SLOW_RETRIES = 2;

export interface Failure {
  target: string;
  index: number;
  kind: 'crash' | 'slow';
  detail: string;
  ms: number;
  saved?: string;
}

export interface Counts {
  cases: number;
  accepted: number;
  refused: number;
  crashes: number;
  slow: number;
  failures: Failure[];
}

export const emptyCounts = (): Counts => ({ cases: 0, accepted: 0, refused: 0, crashes: 0, slow: 0, failures: [] });

async function timed<I>(target: Target<I>, input: I): Promise<{ verdict: Verdict; ms: number }> {
  const start = performance.now();
  let verdict: Verdict;
  try {
    verdict = await target.run(input);
  } catch (error) {
    verdict = { kind: 'crash', detail: error instanceof Error ? (error.stack ?? error.message) : String(error) };
  }
  return { verdict, ms: performance.now() - start };
}

/**
 * Runs `cases` cases of one target. A case over one second is run twice more
 * before it counts as slow, so a burst of contention on a busy machine is not
 * taken for a slow parser: an input that costs a second costs it every time.
 * Failing inputs are saved under the OS temp dir.
 */
export async function runTarget<I>(target: Target<I>, options: { seed: number; cases: number; first?: number }): Promise<Counts> {
  const counts = emptyCounts();
  const first = options.first ?? 0;
  let next = first;
  const worker = async () => {
    for (let index = next++; index < first + options.cases; index = next++) {
      const input = target.generate(rng(caseSeed(options.seed, target.name, index)));
      let { verdict, ms } = await timed(target, input);
      for (let retry = 0; verdict.kind !== 'crash' && ms > SLOW_MS && retry < SLOW_RETRIES; retry++) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        ({ verdict, ms } = await timed(target, input));
      }
      counts.cases += 1;
      let failure: Failure | undefined;
      if (verdict.kind === 'crash') {
        counts.crashes += 1;
        failure = { target: target.name, index, kind: 'crash', detail: verdict.detail, ms };
      } else if (ms > SLOW_MS) {
        counts.slow += 1;
        failure = { target: target.name, index, kind: 'slow', detail: `${Math.round(ms)} ms`, ms };
      } else if (verdict.kind === 'accepted') counts.accepted += 1;
      else counts.refused += 1;
      if (failure) {
        failure.saved = target.save(input, mkdtempSync(join(tmpdir(), `autopilot-fuzz-${target.name}-`)));
        counts.failures.push(failure);
      }
      target.dispose?.(input);
    }
  };
  await Promise.all(Array.from({ length: target.concurrency }, worker));
  return counts;
}

export function add(total: Counts, more: Counts): Counts {
  return {
    cases: total.cases + more.cases,
    accepted: total.accepted + more.accepted,
    refused: total.refused + more.refused,
    crashes: total.crashes + more.crashes,
    slow: total.slow + more.slow,
    failures: [...total.failures, ...more.failures],
  };
}

/** How many of `cases` each target gets: all of them for a named target, else by share. */
export function allocate(targets: Target<never>[], cases: number): Map<Target<never>, number> {
  const total = targets.reduce((sum, t) => sum + t.share, 0);
  return new Map(targets.map((t) => [t, Math.max(1, Math.round((cases * t.share) / total))]));
}

export function closingLine(counts: Counts, seed: number): string {
  return `fuzz: ${counts.cases} cases, ${counts.accepted} accepted, ${counts.refused} refused (exit 2), ${counts.crashes} crashes, ${counts.slow} over one second (seed ${seed})`;
}

export function failureLines(counts: Counts, seed: number): string[] {
  return counts.failures.map(
    (f) =>
      `${f.kind} in ${f.target}, case ${f.index} (seed ${seed}, ${Math.round(f.ms)} ms)${f.saved ? `, input saved to ${f.saved}` : ''}: ${f.detail.split('\n').slice(0, 6).join('\n  ')}`,
  );
}

export function saveText(dir: string, name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}
