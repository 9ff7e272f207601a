/**
 * The read every command starts with, git included: the pointer, the
 * journal and the folder (`loadState`), and, when they cannot decide, git.
 * - the journal holds a merge not yet settled (a fork, `engine/fork.ts`): the
 *   fork decides, whatever the pointer says — one side's text, or both sides
 *   in conflict markers (the file is set aside, and kept when rewritten);
 * - the pointer holds merge-conflict markers: each side is judged by the
 *   journal and the folder; when both come to the same position it stands,
 *   otherwise exit 2 naming both and how to pick one;
 * - the pointer does not parse: the journal's last position (the record the
 *   pointer only summarises), and only when the journal holds none, the last
 *   committed pointer, else the newest progress commit's trailers; its bytes
 *   are kept before any rewrite, and the answer says which source was used;
 * - the pointer and the journal both gone from the work tree while HEAD holds
 *   them: HEAD's pointer before the folder, and a command that writes stops
 *   (exit 2), naming how to bring them back, rather than start a journal
 *   shorter than HEAD's;
 * - no pointer, no journal, nothing in the folder, and no autopilot folder
 *   (`_docs/_autopilot/`, which `init` makes): a fresh clone without
 *   `_docs/`, the folder deleted by mistake: the same. A repository `init`
 *   set up and no command has moved yet has no history to look for.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { relative } from 'node:path';
import { InputError, type Problem } from '../../errors.js';
import type { Flow } from '../../formats/flow/model.js';
import { displayPath, type Repo } from '../../io/repo.js';
import { parsePointer } from '../../formats/pointer/parse-pointer.js';
import type { Position } from '../../formats/pointer/position.js';
import { isTouched } from '../../engine/evidence.js';
import { conflictSides, gitFallbackOff, positionFromGit, stateAtHead, type AtHead } from '../git/source.js';
import { loadState, readPointerText, type JudgedSteps, type Loaded, type PointerOverride } from './load-state.js';
import { judgeFound } from './found-on-disk.js';
import { heldCriteria } from './criteria.js';
import { criteriaDrift } from '../../engine/criteria.js';
import { readJournalHead, type JournalHead } from '../../io/journal-head.js';
import { describeTarget } from '../../engine/follow-through.js';
import { fromPointerRecord } from '../../formats/journal-line.js';
import { POINTER_MAX_BYTES } from '../../limits.js';
import { cutRecovery, cutText } from '../../engine/journal-cut.js';
import type { Drift } from '../../engine/reconcile.js';
import { findCut } from './journal-cut.js';

/** The pointer did not read. One past the size limit is refused as it is: it is never read, not even to keep a copy. */
const unreadablePointer = (repo: Repo, error: unknown) =>
  error instanceof InputError &&
  error.problems.some((p) => p.file === displayPath(repo.pointerFile, repo.root)) &&
  (statSync(repo.pointerFile, { throwIfNoEntry: false })?.size ?? 0) <= POINTER_MAX_BYTES;

export interface ReadOptions {
  /** The command writes (under the lock): where HEAD holds the pointer and journal the work tree lost, or the journal lost events, it stops instead. */
  writing?: boolean;
  /** A person's `adopt`: a journal that lost events is adopted, not refused. */
  adoptCut?: boolean;
  /** `check`: HEAD's journal may be asked whether it reaches further than the work tree's, as a writing command asks. */
  head?: boolean;
}

export async function readState(repo: Repo, flows: Flow[], known?: JournalHead, options: ReadOptions = {}): Promise<Loaded> {
  return withCut(repo, await readPosition(repo, flows, known, options), options);
}

/**
 * Rule 7: a journal that lost events (`engine/journal-cut.ts`, `app/transaction/journal-cut.ts`)
 * is said by every read, and a command that writes refuses (exit 2) before
 * anything is written, naming the cut and the way back; a person's `adopt`
 * goes on from the position shown, numbered past every event the signs name.
 */
async function withCut(repo: Repo, loaded: Loaded, options: ReadOptions): Promise<Loaded> {
  // The position from git (the work tree lost the pointer, and the journal or its position): said by its own drift.
  if (loaded.reconciled.drift.some((d) => d.kind === 'from-git')) return loaded;
  const cut = await findCut(repo, loaded, { git: options.writing === true || options.head === true });
  if (!cut) return loaded;
  const journalFile = displayPath(repo.journalFile, repo.root);
  const text = cutText(cut, journalFile);
  if (options.writing && !options.adoptCut)
    throw new InputError(
      { file: journalFile, message: text, expected: `every event up to ${cut.expected}`, received: cut.found === 0 ? 'no event' : `events up to ${cut.found}` },
      `Nothing was written. ${cutRecovery(cut, journalFile)}`,
    );
  const drift: Drift = {
    kind: cut.found === 0 ? 'journal-gone' : 'journal-behind',
    step: loaded.reconciled.position.step,
    message: `${text}. ${cutRecovery(cut, journalFile)}`,
  };
  // The pointer's marker already said it (`checkRecord`): once.
  const others = loaded.reconciled.drift.filter((d) => d.kind !== 'journal-gone' && d.kind !== 'journal-behind');
  return { ...loaded, cut, lastSeq: Math.max(loaded.lastSeq, cut.expected), reconciled: { ...loaded.reconciled, drift: [drift, ...others] } };
}

async function readPosition(repo: Repo, flows: Flow[], known: JournalHead | undefined, options: ReadOptions): Promise<Loaded> {
  let loaded: Loaded;
  try {
    loaded = await load(repo, flows, undefined, known);
  } catch (error) {
    if (!unreadablePointer(repo, error)) throw error;
    const text = readPointerText(repo) ?? '';
    const sides = conflictSides(text);
    if (readJournalHead(repo.journalFile).fork) {
      const what = sides ? 'holds merge-conflict markers' : 'does not parse';
      return load(repo, flows, {
        pointer: null,
        broken: text,
        drift: { kind: 'journal-fork', step: 1, message: `the pointer ${what}: it is set aside (and kept when rewritten); the journal's fork decides` },
      });
    }
    if (sides) return resolveConflict(repo, flows, sides, text);
    const why = whyUnreadable(error as InputError);
    // The journal is the record the pointer summarises: its last position comes first, git only when it holds none.
    const head = known ?? readJournalHead(repo.journalFile);
    if (head.record) {
      const at = describeTarget(fromPointerRecord(head.record.pointer));
      return load(
        repo,
        flows,
        {
          pointer: null,
          broken: text,
          drift: {
            kind: 'from-journal',
            step: head.record.pointer.step,
            message: `the pointer does not parse (${why}); the position comes from the journal (event ${head.record.seq}: ${at})`,
          },
        },
        head,
      );
    }
    const fromGit = await positionFromGit(repo, flows);
    if (!fromGit) throw withGitNote(repo, error as InputError);
    return load(repo, flows, {
      pointer: fromGit.pointer,
      broken: text,
      drift: {
        kind: 'from-git',
        step: fromGit.pointer.position.step,
        message: `the pointer does not parse (${why}) and the journal holds no position; the position comes from ${fromGit.from}`,
      },
    });
  }
  // Pointer and journal both gone from the work tree while HEAD holds them: HEAD's come before the folder.
  if (!loaded.pointer && !existsSync(repo.journalFile) && mayBeAtHead(repo, loaded)) {
    const atHead = await stateAtHead(repo, flows);
    if (atHead) return fromHead(repo, flows, atHead, options);
  }
  // `init` makes the autopilot folder: where it stands, there is no earlier run for git to recall, and a
  // fresh repository's `status` starts no git process.
  const nothing = !loaded.pointer && !loaded.record.start && !loaded.evidence.steps.some(isTouched) && !existsSync(repo.autopilotDir);
  if (!nothing) return loaded;
  const fromGit = await positionFromGit(repo, flows);
  if (!fromGit) return loaded;
  return load(repo, flows, {
    pointer: fromGit.pointer,
    folderEmpty: true,
    drift: {
      kind: 'from-git',
      step: fromGit.pointer.position.step,
      message: `no pointer, no journal and nothing in the folder; the position comes from ${fromGit.from}`,
    },
  });
}

/**
 * Whether git is worth asking for a pointer and journal the work tree lacks:
 * not in a repository `init` has just set up (its autopilot folder empty,
 * nothing in the docs folder), so that `status` there starts no git process.
 */
function mayBeAtHead(repo: Repo, loaded: Loaded): boolean {
  if (!existsSync(repo.autopilotDir) || loaded.evidence.steps.some(isTouched)) return true;
  try {
    return readdirSync(repo.autopilotDir).length > 0;
  } catch {
    return true;
  }
}

/**
 * The pointer and the journal are gone from the work tree, and HEAD holds them
 * (rule 2; rule 7's last sentence): a read takes the position from HEAD's
 * pointer (`source: git`) and says how to bring both back; a command that
 * writes stops (exit 2) before anything is written, for its new journal would
 * be shorter than HEAD's, and only a person may start the run over.
 */
async function fromHead(repo: Repo, flows: Flow[], atHead: AtHead, options: ReadOptions): Promise<Loaded> {
  const { held, back, over } = headHolds(repo, atHead);
  if (options.writing || !atHead.fromGit) {
    throw new InputError(
      atHeadProblem(repo, atHead),
      `Nothing was written. Bring ${atHead.files.length > 1 ? 'them' : 'it'} back: ${back}; then run the command again. To start the run over instead, a person runs ${over}.`,
    );
  }
  const fromGit = atHead.fromGit;
  return load(repo, flows, {
    pointer: fromGit.pointer,
    fromHead: true,
    drift: {
      kind: 'from-git',
      step: fromGit.pointer.position.step,
      message: `${held}; the position comes from ${fromGit.from} (${describeTarget(fromGit.pointer.position)}). ${back} brings them back; a command that writes refuses until then (to start over, a person runs ${over})`,
    },
  });
}

/** What HEAD holds that the work tree lost, in words; the git command that brings it back; a person's command that starts over. */
function headHolds(repo: Repo, atHead: AtHead): { held: string; back: string; over: string } {
  const journal = rel(repo, repo.journalFile);
  const what = atHead.files.length > 1 ? 'the pointer and the journal' : atHead.files[0] === journal ? 'the journal' : 'the pointer';
  const upTo = atHead.event !== undefined ? `, up to event ${atHead.event}` : '';
  const files = atHead.files.map((f) => `\`${f}\``).join(' and ');
  return {
    held: `the pointer and the journal are gone from the work tree, but HEAD holds ${what} (${files}${upTo})`,
    back: `\`git checkout HEAD -- ${atHead.files.join(' ')}\``,
    over: `\`autopilot reset --flow ${atHead.fromGit?.pointer.position.flow ?? '<flow>'}\``,
  };
}

/** The problem `check` names, and a writing command stops on: a new journal would be shorter than HEAD's. */
export function atHeadProblem(repo: Repo, atHead: AtHead): Problem {
  const { held, back } = headHolds(repo, atHead);
  return {
    file: displayPath(repo.pointerFile, repo.root),
    message: `${held}: a new journal would be shorter than HEAD's, and none is committed without a person`,
    expected: `the pointer and the journal as HEAD holds them (${back})`,
    received: 'neither in the work tree',
  };
}

const rel = (repo: Repo, file: string) => relative(repo.root, file).split('\\').join('/');

/**
 * `loadState`, and when its walk over work found on disk completed steps
 * (`walkFolder`), once more with each of those steps' files judged as `done`
 * judges them (`judgeFound`): the walk then stops at the first that fails.
 * Only then are outputs read and judged: a command with no such walk pays nothing.
 */
async function load(repo: Repo, flows: Flow[], override?: PointerOverride, known?: JournalHead): Promise<Loaded> {
  let loaded = loadState(repo, flows, override, known);
  // Judged, a walk may stop sooner, and a held hand edit start elsewhere: until no walk finds a step not judged yet.
  let judged: JudgedSteps | undefined;
  for (let pass = 0; pass < JUDGE_PASSES; pass++) {
    const more = await judgeFound(loaded, judged);
    if (!more) break;
    judged = more;
    loaded = loadState(repo, flows, override, known, judged);
  }
  return withCriteria(loaded);
}

/** The state with an edit of the pinned acceptance criteria, when one is held (issue 29 point 8): said as drift by every command. */
function withCriteria(loaded: Loaded): Loaded {
  const position = loaded.reconciled.position;
  const criteria = heldCriteria(loaded, position);
  if (!criteria) return loaded;
  const drift = [...loaded.reconciled.drift, criteriaDrift(loaded.flow, criteria, position)];
  return { ...loaded, criteria, reconciled: { ...loaded.reconciled, drift } };
}

/** Each pass judges only steps no pass before judged, so a few settle it: a walk from the pointer, then one from the journal's position. */
const JUDGE_PASSES = 4;

/** What the parser said, with its line: `line 3: \`step\` is not a step number`. */
function whyUnreadable(error: InputError): string {
  const first = error.problems[0];
  if (!first) return 'unreadable';
  return `${first.line ? `line ${first.line}: ` : ''}${first.message}`;
}

function withGitNote(repo: Repo, error: InputError): InputError {
  const off = gitFallbackOff(repo);
  return new InputError(
    error.problems,
    `${error.hint ?? ''}\n${off ? `(No git history to recover it from: ${off === 'not a git repository' ? 'this folder is not a git repository' : off}.)` : '(Git history has no readable pointer or progress commit to fall back on.)'}`.trim(),
  );
}

function resolveConflict(repo: Repo, flows: Flow[], sides: { ours: string; theirs: string }, text: string): Loaded {
  const file = displayPath(repo.pointerFile, repo.root);
  const judged: { side: string; loaded?: Loaded; position?: Position }[] = (['ours', 'theirs'] as const).map((side) => {
    try {
      const pointer = parsePointer(sides[side], file);
      const loaded = loadState(repo, flows, { pointer, broken: text, drift: { kind: 'merge-resolved', step: pointer.position.step, message: '' } });
      return { side, loaded, position: loaded.reconciled.position };
    } catch {
      return { side };
    }
  });
  const [ours, theirs] = judged;
  // The same step of the same cycle on both sides: the work agrees; the branch merged into (ours) says how far inside it.
  const same = ours!.position && theirs!.position && ours!.position.step === theirs!.position.step && ours!.position.cycle === theirs!.position.cycle;
  const winner = same ? ours : ours!.position && !theirs!.position ? ours : theirs!.position && !ours!.position ? theirs : undefined;
  if (winner?.loaded) {
    const message = `the pointer holds a merge conflict; the journal and the folder put the work at ${describeTarget(winner.position!)}${same ? ' on both sides' : ` (the other side does not read)`}`;
    const drift = winner.loaded.reconciled.drift.map((d) => (d.kind === 'merge-resolved' ? { ...d, message } : d));
    return { ...winner.loaded, reconciled: { ...winner.loaded.reconciled, drift } };
  }
  const describe = (j: (typeof judged)[number]) =>
    j.position ? describeTarget(j.position) + `, ${j.position.status}, retry ${j.position.retryCount}` : 'unreadable';
  throw new InputError(
    {
      file,
      message: 'the pointer holds a merge conflict, and the journal and the folder cannot decide between its two sides',
      expected: 'one position',
      received: `ours: ${describe(ours!)}; theirs: ${describe(theirs!)}`,
    },
    `Pick one: keep one side's lines in ${file} (while the merge is in progress, \`git checkout --ours -- ${file}\` or \`--theirs\`), then \`autopilot next\`.`,
  );
}
