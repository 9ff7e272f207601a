/**
 * `fresh`: the work of this attempt is new. Engine-wide, not per file: when
 * an attempt of a step begins (`next` starts it; `fail` ends the one before),
 * the journal records each of its evidence files with a hash of its content;
 * `done` needs at least one of them new or changed since. In a round a
 * decision repeats (research), the drafts that existed as the round began are
 * never edited, and a new draft is not a copy of one of them (nor mostly
 * one: `draft-copy.ts`).
 * The hashes are of what a reader sees (`comparable`: spacing, case,
 * comments and look-alike letters aside), so a space added to the failed
 * attempt's file changes nothing. A journal written before hashed the exact
 * text: a recorded hash matches a file when it is either of the file's two
 * (`files`, `exact`), so those journals keep reading as they did.
 * Nothing is judged where the journal holds no record of the attempt's start
 * (an older autopilot's journal): the files are all there is.
 */
import type { Finding } from './types.js';

/** A file → the hash of its content (`hashes` of `step_started`, `step_failed`; `round_hashes` of `decision_answered`). */
export type FileHashes = Readonly<Record<string, string>>;

export interface FreshInput {
  /** The step's evidence files now, each with the hash of what a reader sees of it. */
  files: FileHashes;
  /** The same with the hash of each file's exact text, as journals before recorded them. */
  exact?: FileHashes;
  /** The files as this attempt began, as the journal recorded them; undefined when it does not say. */
  baseline?: FileHashes;
  /** The attempt being finished (1, 2, 3). */
  attempt?: number;
  /** In a repeated round: the files as the round began. */
  round?: FileHashes;
  /** The step, in words: `step 2 (Research)`. */
  step: string;
}

export function fresh({ files, exact, baseline, attempt, round, step }: FreshInput): Finding[] {
  const findings: Finding[] = [];
  const names = Object.keys(files);
  /** Whether a hash the journal recorded is the file's now. */
  const same = (file: string, recorded: string | undefined) => recorded !== undefined && (recorded === files[file] || recorded === exact?.[file]);
  if (round) {
    const earlier = new Map(Object.entries(round).map(([file, hash]) => [hash, file]));
    for (const file of names) {
      const was = round[file];
      if (was !== undefined && !same(file, was))
        findings.push({
          check: 'fresh',
          file,
          message: `${file} is an earlier round's draft, and it was edited in this round (drafts are never edited)`,
          write: `${file} back as it was (\`git checkout\` it), and this round's work in a new numbered draft`,
        });
      const copyOf = was === undefined ? (earlier.get(files[file]!) ?? earlier.get(exact?.[file] ?? '')) : undefined;
      if (copyOf)
        findings.push({
          check: 'fresh',
          file,
          message: `${file} is a copy of the earlier round's ${copyOf}`,
          write: "this round's own draft: what the new round found, revised from the last",
        });
    }
  }
  if (baseline && names.length > 0 && names.every((file) => same(file, baseline[file]))) {
    findings.push({
      check: 'fresh',
      file: names[0]!,
      message: `none of the files of ${step} is new or changed in this attempt${attempt && attempt > 1 ? ` (attempt ${attempt}, after a failed one)` : ''}: ${names.join(', ')} ${names.length === 1 ? 'is' : 'are'} as ${names.length === 1 ? 'it was' : 'they were'} when the attempt began`,
      write: "this attempt's work: the files revised (or new ones) to answer what failed",
    });
  }
  return findings;
}
