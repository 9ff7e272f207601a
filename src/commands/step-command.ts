/**
 * The seven step commands share one shape: an event for the engine, the
 * options every one of them takes (`--take-over`, `--commit`, and `--step`
 * for those aimed at a step), and one view. Each is still a file of its own.
 */
import { runStep, type StepResult } from '../app/step/run-step.js';
import type { Event } from '../engine/transitions.js';
import { stepJson } from '../render/json.js';
import { outcomeText } from '../render/step-text.js';
import { lazyAnswer, PERSON_ONLY_MCP, type ArgumentSpec, type Command, type Exposure, type Example, type OptionSpec } from './command.js';

/** What every step command's arguments may carry. */
export interface StepArgs {
  step?: number;
  takeOver?: boolean;
  commit?: boolean;
}

const STEP: OptionSpec = {
  key: 'step',
  flags: '--step <n>',
  type: 'step',
  summary: 'the step this is for (default: the current one); refused if the work has moved on',
};

const TAKE_OVER: OptionSpec = {
  key: 'takeOver',
  flags: '--take-over',
  type: 'boolean',
  summary: 'take the repository over from another session (journaled)',
  person: true,
  notOnMcp:
    "a person's override: a client's permission rules name MCP tools, not their arguments, so it stays on the command line where a rule asks the person",
};

const COMMIT: OptionSpec = {
  key: 'commit',
  flags: '--commit',
  type: 'boolean',
  summary: 'insist on the progress commit (made by default where git can take one): refused where git cannot',
};

/** Who runs a step command: the agent, through its MCP tool of this description (short: it goes into every model session), or only a person (no tool). */
type StepRunner = { person?: undefined; tool: string } | { person: true; tool?: string };

export function stepCommand<A extends StepArgs>(
  spec: StepRunner & {
    name: Event['type'];
    summary: string;
    examples: readonly Example[];
    /** `next` acts on the current step; the others name theirs with `--step`. */
    aimed: boolean;
    arguments?: readonly ArgumentSpec[];
    options?: readonly OptionSpec[];
    event: (args: A) => Event;
  },
): Command<A, StepResult> {
  // A person's command is never an MCP tool (rule 10), whatever its spec says.
  const exposure: Exposure = spec.person ? { person: true, mcp: { omitted: PERSON_ONLY_MCP, answer: 'step' } } : { mcp: { tool: spec.tool, answer: 'step' } };
  return {
    name: spec.name,
    summary: spec.summary,
    examples: spec.examples,
    step: true,
    ...exposure,
    ...(spec.arguments ? { arguments: spec.arguments } : {}),
    options: [...(spec.aimed ? [STEP] : []), ...(spec.options ?? []), TAKE_OVER, COMMIT],
    run: (ctx, args) =>
      runStep(ctx, {
        event: spec.event(args),
        ...(args.step !== undefined ? { step: args.step } : {}),
        ...(args.takeOver ? { takeOver: true } : {}),
        ...(args.commit ? { commit: true } : {}),
      }),
    view: ({ view, exit }) =>
      lazyAnswer(
        () => stepJson(view),
        () => outcomeText(view),
        exit,
      ),
  };
}
