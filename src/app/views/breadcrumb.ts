/**
 * `autopilot breadcrumb`: a short Markdown block to paste into an issue or a
 * pull request (docs/git.md, "Breadcrumbs"): where the run is, what happened
 * since the last breadcrumb, what is next, open decisions. Everything taken
 * from the journal or a flow is escaped for Markdown and HTML (`mdText`), so
 * a reason cannot inject an image, a mention or a closing tag. Printing one
 * changes nothing; `--mark` (and `--note`, which also stores it as a git note
 * on the last progress commit) journals it, so the next one starts from here,
 * on every machine.
 */
import type { Loaded } from '../transaction/load-state.js';
import { openDecision } from '../../engine/boundary.js';
import { describeTarget } from '../../engine/follow-through.js';
import { entry, type StampedEntry } from '../../formats/journal-line.js';
import { InputError } from '../../errors.js';
import { readBackwards } from '../../io/journal.js';
import { openRepo } from '../../io/repo.js';
import { BREADCRUMB_MAX_EVENTS, BREADCRUMB_SCAN_EVENTS } from '../../limits.js';
import { mdText } from '../../report/md-text.js';
import type { Context } from '../transaction/context.js';
import { loadRepoFlows } from '../transaction/flows.js';
import { gitFallbackOff } from '../git/source.js';
import { readState } from '../transaction/read-state.js';
import { pointerAt, transact } from '../transaction/transact.js';

/** One event in a line of Markdown, every piece of text from the journal escaped. */
function said(e: StampedEntry, names: (step: number) => string | undefined): string | undefined {
  const step = e.step === 'done' ? 'the flow' : `step ${e.step} ${mdText(e.name)}`;
  const text = (v: unknown) => mdText(String(v));
  // A boundary is labelled by the step it follows, not the step it leads to.
  const after = (n: unknown) => (typeof n === 'number' ? `step ${n}${names(n) ? ` ${mdText(names(n)!)}` : ''}` : 'a step');
  switch (e.event) {
    case 'step_completed':
      return `${step} completed${e.forced ? ' (forced by a person)' : ''}`;
    case 'step_skipped':
      return `${step} skipped${e.by === 'condition' ? ' (its condition does not hold)' : e.reason ? `: ${text(e.reason)}` : ''}`;
    case 'step_failed':
      return `${step} failed (attempt ${text(e.attempt)}${e.reason ? `: ${text(e.reason)}` : ''})`;
    case 'decision_answered':
      return `decision after ${step}: ${text(e.option)}) ${text(e.choice)}`;
    case 'boundary_answered':
      return `session boundary after ${after(e.after)}: ${text(e.option)}) ${text(e.choice)}`;
    case 'boundary_reached':
      return `session boundary after ${after(e.after)}`;
    case 'failure_acknowledged':
      return `${step}: a person acknowledged the failure`;
    case 'cycle_started':
      return `cycle ${e.cycle} started`;
    case 'flow_completed':
      return `${mdText(e.flow)} completed`;
    default:
      return undefined;
  }
}

/** The breadcrumb as of the state read: pure but for reading the journal's end. */
function breadcrumbOf(loaded: Loaded): { markdown: string; events: number } {
  const { flow, repo } = loaded;
  const position = loaded.reconciled.position;
  const since: StampedEntry[] = [];
  readBackwards(repo.journalFile, (e) => {
    if (e.event === 'breadcrumb') return true;
    since.push(e);
    return since.length >= BREADCRUMB_SCAN_EVENTS;
  });
  const names = (n: number) => flow.steps[n - 1]?.name;
  const happened = since
    .reverse()
    .map((e) => said(e, names))
    .filter((s): s is string => s !== undefined);
  const shown = happened.slice(-BREADCRUMB_MAX_EVENTS);
  const where =
    position.step === 'done'
      ? `${mdText(flow.id)}: done`
      : `${mdText(flow.id)} · step ${position.step} of ${flow.steps.length} (${mdText(position.name)}) · ${mdText(position.status)}`;
  const open = openDecision(flow, position, loaded.boundary);
  const next = mdText(describeTarget(position));
  const markdown = [
    `**autopilot** · ${where}${position.cycle > 1 ? ` · cycle ${position.cycle}` : ''}`,
    '',
    `**Since the last breadcrumb:**${shown.length === 0 ? ' nothing new.' : ''}`,
    ...(happened.length > shown.length ? [`- … ${happened.length - shown.length} earlier events`] : []),
    ...shown.map((s) => `- ${s}`),
    '',
    `**Next:** ${position.status === 'failed' ? `${next} failed three times; a person runs \`autopilot ack\`` : next}`,
    `**Open decisions:** ${open ? `${mdText(open.question)} (${open.options.map((o) => `${o.letter}) ${mdText(o.choice)}`).join('; ')})` : 'none'}`,
  ].join('\n');
  return { markdown, events: happened.length };
}

/** `mark`: journal it, so the next breadcrumb starts from here (`note` marks too, and stores it as a git note). */
export async function runBreadcrumb(
  ctx: Context,
  options: { note?: boolean; mark?: boolean } = {},
): Promise<{ markdown: string; noted?: string; marked: boolean }> {
  const mark = options.mark === true || options.note === true;
  if (!mark) {
    // Printing a breadcrumb changes nothing: no lock, no event.
    const repo = openRepo(ctx.repo);
    return { markdown: breadcrumbOf(await readState(repo, await loadRepoFlows(repo, false))).markdown, marked: false };
  }
  const { result: markdown } = await transact(ctx, { flows: 'read' }, async ({ state }) => {
    const loaded = await state();
    const position = loaded.reconciled.position;
    const { markdown, events } = breadcrumbOf(loaded);
    return {
      plan: { entries: [entry('breadcrumb', position, { events })], pointer: pointerAt(loaded, position) },
      answer: () => markdown,
    };
  });
  if (!options.note) return { markdown, marked: true };
  const repo = openRepo(ctx.repo);
  const off = gitFallbackOff(repo);
  const { openGit } = await import('../../git/repository.js');
  const opened = off ? { handle: undefined, reason: off } : await openGit(repo.root);
  if (!opened.handle) throw new InputError({ message: `--note needs git: ${opened.reason}`, expected: 'a git repository' });
  const { progressTrailers } = await import('../../git/history.js');
  const [last] = await progressTrailers(opened.handle, 1);
  if (!last)
    throw new InputError({
      message: '--note needs a progress commit to note, and there is none yet',
      expected: 'a step command run with --commit (or `commit: true` in .autopilot/config.yml)',
    });
  const { addNote } = await import('../../git/notes.js');
  await addNote(opened.handle, last.sha, markdown, { replace: true });
  return { markdown, noted: last.sha, marked: true };
}
