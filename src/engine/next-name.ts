/**
 * What a step's agent writes where a Done-when cell is a pattern: the next
 * free name of a numbered file (`01_solution/solution_draft_*.md` with
 * `solution_draft_01.md` and `…_02.md` on disk → `solution_draft_03.md`).
 * Pure: from the pattern and the files that match it.
 */

/** A glob character: a segment that holds one is not a name. */
const GLOB = /[*?[\]{}!]/;

/**
 * The next free name for a pattern whose file name is a stem, one `*` and an
 * end (`solution_draft_*.md`), in a folder named without a glob: one more
 * than the highest number the matches hold at the `*`, as wide as that
 * number (two digits when none: `01`). Undefined for any other pattern (a
 * plain path names its file itself; `*.md` or `{a,b}` name no number).
 * `matches`: paths from the same folder as the pattern, as the evidence lists them.
 */
export function nextFreeName(pattern: string, matches: readonly string[]): string | undefined {
  const slash = pattern.lastIndexOf('/');
  const folder = pattern.slice(0, slash + 1);
  const name = pattern.slice(slash + 1);
  const star = name.indexOf('*');
  if (GLOB.test(folder) || star <= 0 || GLOB.test(name.slice(star + 1))) return undefined;
  const [stem, end] = [name.slice(0, star), name.slice(star + 1)];
  let highest = 0;
  let width = 2;
  for (const match of matches) {
    if (!match.startsWith(folder)) continue;
    const base = match.slice(folder.length);
    if (base.length < stem.length + end.length || !base.startsWith(stem) || !base.endsWith(end)) continue;
    const digits = base.slice(stem.length, base.length - end.length);
    if (!/^\d{1,9}$/.test(digits) || Number(digits) < highest) continue;
    highest = Number(digits);
    width = digits.length;
  }
  return `${folder}${stem}${String(highest + 1).padStart(width, '0')}${end}`;
}
