/**
 * `autopilot breadcrumb`: a short Markdown block to paste into an issue or a
 * pull request (docs/git.md): where the run is, what
 * happened since the last breadcrumb, what is next, open decisions. The
 * breadcrumb is journaled, so "since the last one" holds across machines;
 * `--note` also stores it as a git note on the last progress commit.
 */
import { openDecision } from '../engine/boundary.js';
import { describeTarget } from '../engine/follow-through.js';
import { entry, type StampedEntry } from '../formats/journal-line.js';
import { InputError } from '../errors.js';
import { readBackwards } from '../io/journal.js';
import { openRepo } from '../io/repo.js';
import { BREADCRUMB_MAX_EVENTS, BREADCRUMB_SCAN_EVENTS } from '../limits.js';
import type { Context } from './context.js';
import { gitFallbackOff } from './git-source.js';
import { pointerAt, transact } from './transaction.js';

function said(e: StampedEntry): string | undefined {
  const step = e.step === 'done' ? 'the flow' : `step ${e.step} ${e.name}`;
  switch (e.event) {
    case 'step_completed':
      return `${step} completed${e.forced ? ' (forced by a person)' : ''}`;
    case 'step_skipped':
      return `${step} skipped${e.by === 'condition' ? ' (its condition does not hold)' : e.reason ? `: ${e.reason}` : ''}`;
    case 'step_failed':
      return `${step} failed (attempt ${String(e.attempt)}${e.reason ? `: ${e.reason}` : ''})`;
    case 'decision_answered':
    case 'boundary_answered':
      return `decision after ${step}: ${String(e.option)}) ${String(e.choice)}`;
    case 'boundary_reached':
      return `session boundary after step ${String(e.after)}`;
    case 'failure_acknowledged':
      return `${step}: a person acknowledged the failure`;
    case 'cycle_started':
      return `cycle ${e.cycle} started`;
    case 'flow_completed':
      return `${e.flow} completed`;
    default:
      return undefined;
  }
}

export async function runBreadcrumb(ctx: Context, note: boolean): Promise<{ markdown: string; noted?: string }> {
  const { result: markdown } = await transact(ctx, { flows: 'read' }, async ({ repo, state }) => {
    const loaded = await state();
    const { flow } = loaded;
    const position = loaded.reconciled.position;
    const since: StampedEntry[] = [];
    readBackwards(repo.journalFile, (e) => {
      if (e.event === 'breadcrumb') return true;
      since.push(e);
      return since.length >= BREADCRUMB_SCAN_EVENTS;
    });
    const happened = since
      .reverse()
      .map(said)
      .filter((s): s is string => s !== undefined);
    const shown = happened.slice(-BREADCRUMB_MAX_EVENTS);
    const where =
      position.step === 'done' ? `${flow.id}: done` : `${flow.id} · step ${position.step} of ${flow.steps.length} (${position.name}) · ${position.status}`;
    const open = openDecision(flow, position, loaded.boundary);
    const markdown = [
      `**autopilot** · ${where}${position.cycle > 1 ? ` · cycle ${position.cycle}` : ''}`,
      '',
      `**Since the last breadcrumb:**${shown.length === 0 ? ' nothing new.' : ''}`,
      ...(happened.length > shown.length ? [`- … ${happened.length - shown.length} earlier events`] : []),
      ...shown.map((s) => `- ${s}`),
      '',
      `**Next:** ${position.status === 'failed' ? `${describeTarget(position)} failed three times; a person runs \`autopilot ack\`` : describeTarget(position)}`,
      `**Open decisions:** ${open ? `${open.question} (${open.options.map((o) => `${o.letter}) ${o.choice}`).join('; ')})` : 'none'}`,
    ].join('\n');
    return {
      plan: { entries: [entry('breadcrumb', position, { events: happened.length })], pointer: pointerAt(loaded, position) },
      answer: () => markdown,
    };
  });
  if (!note) return { markdown };
  const repo = openRepo(ctx.repo);
  const off = gitFallbackOff(repo);
  const { openGit } = await import('../git/repository.js');
  const opened = off ? { handle: undefined, reason: off } : await openGit(repo.root);
  if (!opened.handle) throw new InputError({ message: `--note needs git: ${opened.reason}`, expected: 'a git repository' });
  const { progressTrailers } = await import('../git/history.js');
  const [last] = await progressTrailers(opened.handle, 1);
  if (!last)
    throw new InputError({
      message: '--note needs a progress commit to note, and there is none yet',
      expected: 'a step command run with --commit (or `commit: true` in .autopilot/config.yml)',
    });
  const { addNote } = await import('../git/notes.js');
  await addNote(opened.handle, last.sha, markdown, { replace: true });
  return { markdown, noted: last.sha };
}
