/**
 * Rule 7: a journal that lost events is no record to go on from. Pure.
 *
 * The journal is append-only, so every sign of how far it reached once — the
 * pointer's marker, this machine's note of the last progress commit, the
 * newest checkpoint, the journal HEAD holds — names an event the journal must
 * still hold. One that names a later event than the journal's last is a cut
 * (an older copy put back, lines deleted): the run is held, every command
 * that writes refuses, until the record is restored or a person adopts the
 * position (`autopilot adopt`), journaled as theirs. What no sign can tell: a
 * journal cut and every sign forged or removed with it, or a line written by
 * hand in autopilot's own format (docs/state-and-journal.md).
 */

/** What says how far the journal reached. */
export type CutSign = 'pointer' | 'commit' | 'checkpoint' | 'head';

export interface JournalCut {
  /** The highest event a sign names. */
  expected: number;
  /** The journal's last event (0: it holds none). */
  found: number;
  by: CutSign;
  /** Whether HEAD's journal reaches `expected` (`git checkout HEAD -- <journal>` brings the record back); undefined: git not asked. */
  headHolds?: boolean;
}

const SAID: Record<CutSign, string> = {
  pointer: "the pointer's marker names it",
  commit: 'the last progress commit made here recorded it',
  checkpoint: 'the newest checkpoint was taken at it',
  head: 'the journal HEAD holds reaches it',
};

/** The cut the signs show, the highest first; undefined when every sign is within the journal. */
export function judgeCut(found: number, signs: readonly { by: CutSign; seq: number }[]): JournalCut | undefined {
  const beyond = signs.filter((s) => s.seq > found).sort((a, b) => b.seq - a.seq);
  const top = beyond[0];
  if (!top) return undefined;
  const head = signs.find((s) => s.by === 'head');
  return { expected: top.seq, found, by: top.by, headHolds: head ? head.seq >= top.seq : undefined };
}

/** What every command says of a cut: the events expected and found, and why. */
export function cutText(cut: JournalCut, journalFile: string): string {
  const found = cut.found === 0 ? `0 found (${journalFile} holds no event)` : `${cut.found} found`;
  return `the journal lost events: event ${cut.expected} expected, ${found}; ${SAID[cut.by]}. Every command that writes is held until the record is back`;
}

/** How a cut ends: HEAD's journal when it holds the events, else a person's adoption of the position. */
export function cutRecovery(cut: JournalCut, journalFile: string): string {
  const adopt =
    "a person's `autopilot adopt` goes on from the position shown, journaled as theirs (the events lost stay lost; a journal never committed, as on a fresh clone where it is ignored, is recovered only this way)";
  if (cut.headHolds)
    return `Bring the record back: \`git checkout HEAD -- ${journalFile}\` (HEAD holds the journal up to event ${cut.expected} or later); or ${adopt}.`;
  const head = cut.headHolds === false ? '' : `\`git checkout HEAD -- ${journalFile}\` when HEAD holds it, or `;
  return `Bring the record back: ${head}a copy that holds event ${cut.expected} (\`git log -- ${journalFile}\` lists the committed ones); or ${adopt}.`;
}
