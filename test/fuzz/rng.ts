/**
 * A small seeded pseudo-random generator (mulberry32), so every fuzz case is
 * reproducible from the run's seed, the target's name and the case's index.
 */

export interface Rng {
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [0, n). */
  int(n: number): number;
  /** An integer in [min, max], skewed towards small values: most cases are small, a few are huge. */
  size(min: number, max: number): number;
  chance(p: number): boolean;
  pick<T>(items: readonly T[]): T;
}

export function rng(seed: number): Rng {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  return {
    next,
    int,
    size: (min, max) => min + Math.floor((max - min + 1) * next() ** 3),
    chance: (p) => next() < p,
    pick: (items) => items[int(items.length)]!,
  };
}

/** FNV-1a over a string: turns (seed, target, case) into the case's own seed. */
export function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

export const caseSeed = (seed: number, target: string, index: number) => hash32(`${seed}:${target}:${index}`);
