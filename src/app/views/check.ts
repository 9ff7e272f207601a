/** `check`: every flow, every skill a flow names (and the outputs it declares), the pointer against the journal, the journal, the guards; every problem, not the first. */
import { checkRecord } from '../../engine/record.js';
import { InputError, type Problem } from '../../errors.js';
import { isDeepStrictEqual } from 'node:util';
import { carryIndex, emptyJournalIndex, indexEvent } from '../../formats/journal-index.js';
import type { StampedEntry } from '../../formats/journal-line.js';
import { readJournalHead } from '../../io/journal-head.js';
import { readJournal } from '../../io/journal.js';
import { loadFlows } from '../../io/load-flows.js';
import { displayPath, openRepo } from '../../io/repo.js';
import { skillDisplayPath, skillFile, type SkillFile } from '../../io/skills.js';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { readSkillOutputs } from '../transaction/skill-outputs.js';
import { positionHash } from '../../formats/pointer/serialize-pointer.js';
import type { Context } from '../transaction/context.js';
import { flowOfPointer, loadState, readPointer, type Loaded } from '../transaction/load-state.js';
import { readState } from '../transaction/read-state.js';
import type { Flow } from '../../formats/flow/model.js';
import { flowChangeNotice } from '../transaction/flows.js';
import { skillChangeNotice } from '../transaction/skill-pins.js';
import { guardProblems } from './status.js';
import { gitFallbackOff, stateAtHead } from '../git/source.js';
import { atHeadProblem } from '../transaction/read-state.js';
import { outdatedClientFiles } from '../setup/init.js';
import { owedSaid, stillOwed } from '../git/progress-commit.js';
import { readSettings } from '../transaction/settings.js';
import type { Repo } from '../../io/repo.js';
import { proveRuns, type RunProof } from './prove-runs.js';
import { DEFAULT_RUN } from '../../formats/run-name.js';

/** The commit setting, or `auto` when the settings do not read (reported by the commands that read them). */
async function readSettingsOrOff(repo: Repo) {
  try {
    return (await readSettings(repo)).commit;
  } catch {
    return 'auto';
  }
}

export interface CheckResult {
  problems: Problem[];
  flows: string[];
  skills: number;
  pointer: 'ok' | 'absent' | 'invalid';
  journalEvents: number;
  /** Why git cannot be the third source here, when it cannot (said, not a problem). */
  gitOff?: string;
  /** Every run's completed steps proven by content (`proveRuns`); what one lost is also a problem. */
  runs: RunProof[];
}

export async function runCheck(ctx: Pick<Context, 'repo'>): Promise<CheckResult> {
  const repo = openRepo(ctx.repo);
  const { flows, problems, invalid } = await loadFlows(repo, { writeCache: false });
  const skills = skillFiles(repo, flows, problems);
  problems.push(...(await outputProblems(repo, skills)));
  const pointer = await pointerProblems(repo, flows, invalid, problems);
  // The journal lost events (rule 7): held until the record is back or a person adopts the position.
  problems.push(...(await cutProblems(repo, flows)));
  // Pointer and journal both gone from the work tree while HEAD holds them (rule 2): a command that writes stops until they are back.
  if (pointer === 'absent' && !existsSync(repo.journalFile)) {
    const atHead = await stateAtHead(repo, flows);
    if (atHead) problems.push(atHeadProblem(repo, atHead));
  }
  // A run pinned to a flow file, or skills, that have changed since: reported until `repin` adopts them.
  if (pointer === 'ok' && problems.length === 0) problems.push(...pinProblems(repo, flows));
  const journalEvents = await journalProblems(repo, problems);
  for (const guard of guardProblems(repo)) problems.push({ message: guard });
  // The agent clients' files (`src/clients/`): an older text tells the agent what this version no longer does.
  problems.push(...(await outdatedClientFiles(repo)));
  // Merge-back (docs/runs.md): every run's completed steps still have their evidence, by content.
  const runs = proveRuns(ctx.repo);
  problems.push(...runs.flatMap(lostProblems));
  const gitOff = gitFallbackOff(repo);
  return { problems, flows: flows.map((f) => f.id), skills: skills.size, pointer, journalEvents, gitOff, runs };
}

/** Every skill a flow names, by name; a skill with no SKILL.md is a problem at each step that names it, a file too large one problem. */
function skillFiles(repo: Repo, flows: Flow[], problems: Problem[]): Map<string, SkillFile> {
  const skills = new Map<string, SkillFile>();
  for (const flow of flows) {
    for (const step of flow.steps) {
      let skill = skills.get(step.skill);
      if (!skill) {
        skill = skillFile(repo, step.skill);
        skills.set(step.skill, skill);
        // A file too large (or not a file) is one problem, however many steps name it.
        if (skill.problem) problems.push(skill.problem);
      }
      if (!skill.exists) {
        problems.push({
          file: flow.file,
          line: step.line,
          message: `step ${step.number} (${step.name}) names the skill \`${step.skill}\`, which has no SKILL.md`,
          expected: `a file ${displayPath(skill.path, repo.root)} or .autopilot/skills/${step.skill}/SKILL.md`,
          received: 'no such file',
        });
      }
    }
  }
  return skills;
}

/** Each skill's declared outputs: a declaration that does not parse, or a template it names that is not there. */
async function outputProblems(repo: Repo, skills: ReadonlyMap<string, SkillFile>): Promise<Problem[]> {
  const problems: Problem[] = [];
  for (const [name, skill] of skills) {
    if (!skill.exists || skill.problem) continue;
    const declared = await readSkillOutputs(repo, name);
    if (!declared) continue;
    if ('problem' in declared) {
      problems.push(declared.problem);
      continue;
    }
    for (const output of declared.outputs) {
      if (output.template && !existsSync(join(declared.dir, output.template)))
        problems.push({
          file: declared.file,
          message: `the output \`${output.file}\` names the template ${output.template}, which is not in the skill's folder`,
          expected: `a file ${skillDisplayPath(repo, join(declared.dir, output.template))}`,
          received: 'no such file',
        });
    }
  }
  return problems;
}

/** The pointer read and checked against its flow and the journal, its problems added; whether it is there and reads. */
async function pointerProblems(repo: Repo, flows: Flow[], invalid: readonly { id: string }[], problems: Problem[]): Promise<CheckResult['pointer']> {
  const pointerFile = displayPath(repo.pointerFile, repo.root);
  try {
    const parsed = readPointer(repo);
    if (!parsed) return 'absent';
    // A flow file that no longer parses is named above with its lines; the run goes on with its pinned steps meanwhile.
    if (!invalid.some((f) => f.id === parsed.position.flow)) flowOfPointer(repo, flows, parsed);
    // Rule 7: a pointer behind the journal, or edited by hand, is worth a word even when it reads (a fork is named below, and decides).
    const head = readJournalHead(repo.journalFile);
    const journalFile = displayPath(repo.journalFile, repo.root);
    // What is held for a person fails `check` until it is adopted or put back (rule 7); a held hand edit is said as held, not as respected.
    const held = await heldProblems(repo, flows, pointerFile);
    problems.push(...held.problems);
    for (const d of head.fork ? [] : checkRecord(parsed, head.record, positionHash, journalFile).drift) {
      if (d.kind === 'hand-edit' && held.freshEdit) continue;
      // The journal lost what the pointer names: said below with every other sign of a cut.
      if (d.kind === 'journal-gone' || d.kind === 'journal-behind') continue;
      problems.push({ file: pointerFile, message: d.message, expected: 'the pointer autopilot last wrote (`autopilot next` brings it up to the journal)' });
    }
    return 'ok';
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    problems.push(...error.problems);
    return 'invalid';
  }
}

/** A run pinned to a flow file, or skills, that have changed since. */
function pinProblems(repo: Repo, flows: Flow[]): Problem[] {
  try {
    const loaded = loadState(repo, flows);
    const problems: Problem[] = [];
    if (loaded.flowChange)
      problems.push({
        file: loaded.flow.file,
        message: flowChangeNotice(loaded),
        expected: "the flow the run started with, or a person's `autopilot repin`",
      });
    const skills = loaded.skills ? skillChangeNotice(loaded.skills) : undefined;
    if (skills) problems.push({ message: skills, expected: "the skills as the run pinned them, or a person's `autopilot repin`" });
    return problems;
  } catch {
    // Reported above, or by the commands themselves.
    return [];
  }
}

/**
 * The whole journal, its chain too (a merge not settled, a line edited by
 * hand, numbers that repeat: rule 11), a progress commit owed, and the index
 * its end carries: their problems added; how many events it holds.
 */
async function journalProblems(repo: Repo, problems: Problem[]): Promise<number> {
  const journal = readJournal(repo.journalFile, displayPath(repo.journalFile, repo.root), { chain: true });
  for (const p of journal.problems) problems.push(p);
  // The journal ends with a commit owed and not made (HEAD does not hold the journal as it is); with commits off, never made, and no problem.
  const owed = (await readSettingsOrOff(repo)) === false ? undefined : await stillOwed(repo, readJournalHead(repo.journalFile));
  const last = owed ? journal.entries.findLast((e) => e.seq === owed.seq) : undefined;
  if (last && owed) {
    const said = owedSaid(owed);
    problems.push({
      file: displayPath(repo.journalFile, repo.root),
      message: `the progress commit of event ${last.seq} (${said.about}) is owed: a kill, or git refusing it (a detached HEAD, a lock, a hook), stopped it after the state was written; it holds ${said.holds}`,
      expected: 'every progress commit made (the next command that writes makes it, once git can take it)',
    });
  }
  const carried = carriedIndexProblem(repo.journalFile, displayPath(repo.journalFile, repo.root), journal.entries);
  if (carried) problems.push(carried);
  return journal.entries.length;
}

/**
 * A hand edit of the pointer held for a person, and an edit of the pinned
 * acceptance criteria held the same way, as problems; `freshEdit`: the
 * pointer's own edit is the held one (not yet journaled).
 */
async function heldProblems(repo: Repo, flows: Flow[], pointerFile: string): Promise<{ problems: Problem[]; freshEdit: boolean }> {
  let loaded: Loaded;
  try {
    loaded = await readState(repo, flows);
  } catch {
    // Said by the checks around this one, or by the commands themselves.
    return { problems: [], freshEdit: false };
  }
  const problems: Problem[] = loaded.reconciled.drift
    .filter((d) => (d.kind === 'held-edit' && !loaded.held?.dismissed) || d.kind === 'held-criteria')
    .map((d) => ({
      file: d.kind === 'held-criteria' ? (loaded.criteria?.file ?? pointerFile) : pointerFile,
      message: d.message,
      expected: "what the run last recorded, or a person's `autopilot adopt`",
    }));
  return { problems, freshEdit: loaded.held?.fresh === true };
}

/** A journal that lost events, by any sign (`app/transaction/journal-cut.ts`, HEAD's journal included), as `check`'s problem. */
async function cutProblems(repo: Repo, flows: Flow[]): Promise<Problem[]> {
  let loaded: Loaded;
  try {
    loaded = await readState(repo, flows, undefined, { head: true });
  } catch {
    // Said by the checks around this one, or by the commands themselves.
    return [];
  }
  if (!loaded.cut) return [];
  const drift = loaded.reconciled.drift.find((d) => d.kind === 'journal-gone' || d.kind === 'journal-behind');
  return [
    {
      file: displayPath(repo.journalFile, repo.root),
      message: drift?.message ?? 'the journal lost events',
      expected: `every event up to ${loaded.cut.expected}, or a person's \`autopilot adopt\``,
    },
  ];
}

/**
 * The journal index the journal's end carries must be what its events say:
 * every reader trusts the newest copy, and a hand edit of the last line's
 * copy breaks no chain. `entries`: every event on record, in file order.
 */
export function carriedIndexProblem(journalFile: string, display: string, entries: readonly StampedEntry[]): Problem | undefined {
  const carried = readJournalHead(journalFile).index;
  if (!carried) return undefined;
  const derived = emptyJournalIndex();
  for (const e of entries) indexEvent(derived, e);
  if (isDeepStrictEqual(carryIndex(carried.read()), carryIndex(derived))) return undefined;
  return {
    file: display,
    message:
      'the journal index a line near the end carries (`journal_index`) is not what the events before it say (a hand edit?); every command reads it as it is',
    expected:
      'the copy autopilot wrote: remove `journal_index` from the last lines that carry one, and the next command that writes derives it from every event',
  };
}

/** A problem for each completed step whose evidence the tree no longer holds as recorded: the run, the step, the files, and how to bring them back. */
function lostProblems(proof: RunProof): Problem[] {
  const isDefault = proof.run === DEFAULT_RUN;
  return proof.lost.map((lost) => {
    const find = `git log --all-match --grep='^Autopilot-Step: ${lost.step}$'${isDefault ? '' : ` --grep='^Autopilot-Run: ${proof.run}$'`}`;
    const files = lost.files.map((f) => `${f.path} (missing)`);
    const step = `step ${lost.step} ${lost.name}${lost.cycle > 1 ? ` (cycle ${lost.cycle})` : ''}`;
    return {
      file: lost.files[0]!.path,
      message: `${isDefault ? 'the default run' : `run ${proof.run}`}: ${step} is completed on record, and the tree lost its evidence: ${files.join(', ')}. A merge or a revert dropped ${lost.files.length === 1 ? 'it' : 'them'}: bring ${lost.files.length === 1 ? 'it' : 'them'} back from the step's progress commit (\`${find}\`, then \`git checkout <commit> -- <file>\`), or redo the step`,
      expected: "each completed step's files in the tree, as its progress commit held them",
      received: files.join(', '),
    };
  });
}
