/** next, done, fail, skip, decide, ack, substep: read, apply one event, write, show. */
import { apply, exitCodeOf, type Event, type Transition } from '../../engine/transitions.js';
import { stepByNumber } from '../../flow/model.js';
import type { RepoOptions } from '../../io/repo.js';
import { loadState, type Loaded } from '../load-state.js';
import { persist, type Writer } from '../persist.js';
import { buildView, type View } from '../view.js';

export interface CommandResult {
  view: View;
  exit: number;
}

/** Events that speak about "the current step" must not land on another one after a repair. */
const SPEAKS_FOR_A_STEP = new Set<Event['type']>(['done', 'fail', 'skip', 'substep']);

function repairedAway(loaded: Loaded, event: Event): Transition | undefined {
  const before = loaded.pointer?.position.step;
  const now = loaded.reconciled.position;
  if (!SPEAKS_FOR_A_STEP.has(event.type) || before === undefined || before === now.step) return undefined;
  return {
    position: now,
    entries: [],
    outcome: {
      kind: 'refused',
      problem: {
        message: `the pointer was at step ${before}, but the folder puts the work at ${now.step === 'done' ? 'the end' : `step ${now.step} (${now.name})`}; nothing was marked ${event.type}`,
        expected: 'run `autopilot next` to see the repaired position, then act on that step',
        received: `${event.type} for step ${before}`,
      },
    },
  };
}

export async function runEvent(command: string, event: Event, options: RepoOptions, writer: Writer): Promise<CommandResult> {
  const loaded = await loadState(options, { writeCache: true });
  const { position } = loaded.reconciled;
  const transition = repairedAway(loaded, event) ?? apply(loaded.flow, position, loaded.evidence, event);
  const acted = typeof position.step === 'number' ? stepByNumber(loaded.flow, position.step) : undefined;
  const reason = 'reason' in event ? event.reason : event.type === 'done' ? event.force?.reason : undefined;
  const passedOver = transition.entries
    .filter((e) => e.event === 'step_skipped' && e.by === 'condition' && typeof e.step === 'number')
    .map((e) => ({ step: e.step as number, name: e.name, reason: String(e.reason) }));
  const answered = transition.entries.find((e) => e.event === 'decision_answered');
  const view = buildView(command, loaded, transition.position, transition.outcome, {
    ...(answered ? { answer: `${String(answered.option)}) ${String(answered.choice)}` } : {}),
    ...(acted ? { acted } : {}),
    ...(reason ? { reason } : {}),
    ...(passedOver.length > 0 ? { passedOver } : {}),
  });
  // After the view: a work order naming a skill file that cannot be handed to the agent refuses the command before anything is written.
  persist(loaded, transition, writer);
  return { view, exit: exitCodeOf(transition.outcome) };
}

export async function runStatus(options: RepoOptions): Promise<CommandResult> {
  const loaded = await loadState(options, { writeCache: false });
  return { view: buildView('status', loaded, loaded.reconciled.position), exit: 0 };
}
