/**
 * "Did you mean …?" for a word the command line does not know: a command or
 * an option. The rule is commander's (`suggestSimilar`), which this command
 * line replaced: the candidates at the smallest edit distance, at most 2,
 * that keep more than 40% of the longer word; a swap of two neighbouring
 * letters (`statsu`, `--josn`) is one edit, as a typing slip is. Pure.
 */

/** Optimal string alignment distance: Levenshtein with a swap of two neighbouring letters counted as one edit. */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}

const MAX_DISTANCE = 2;
const MIN_SIMILARITY = 0.4;

/** The candidates nearest to `word` (an option's dashes set aside), in the order given; none when nothing is near. */
export function suggest(word: string, candidates: readonly string[]): string[] {
  const bare = (w: string) => w.replace(/^-+/, '');
  let best = MAX_DISTANCE;
  let near: string[] = [];
  for (const candidate of new Set(candidates)) {
    if (bare(candidate).length <= 1 || candidate === word) continue;
    const distance = editDistance(bare(word), bare(candidate));
    const length = Math.max(bare(word).length, bare(candidate).length);
    if ((length - distance) / length <= MIN_SIMILARITY) continue;
    if (distance < best) [best, near] = [distance, [candidate]];
    else if (distance === best) near.push(candidate);
  }
  return near;
}

/** `; did you mean \`status\`?`, or nothing when nothing is near. */
export function didYouMean(word: string, candidates: readonly string[]): string {
  const near = suggest(word, candidates);
  return near.length === 0 ? '' : `; did you mean ${near.map((n) => `\`${n}\``).join(' or ')}?`;
}
