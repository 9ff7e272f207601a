/**
 * The judges of a step's evidence, by the name a skill's declaration uses
 * (`checks: [placeholders, self-check]`). A new kind of check is one file
 * beside these, one line here and its name in `names.ts`. `fresh` is not among them: it judges the
 * step's files together, not one output's file (`fresh.ts`).
 */
import { acceptanceIdsJudge } from './acceptance-ids.js';
import { acceptanceTrace, ACCEPTANCE_FILE } from './acceptance-trace.js';
import { exitCode } from './exit-code.js';
import { filler } from './filler.js';
import type { CheckName } from './names.js';
import { placeholders } from './placeholders.js';
import { sections } from './sections.js';
import { selfCheck } from './self-check.js';
import { taskIndex } from './task-index.js';
import type { Finding, Judge, JudgeInput, JudgeNeeds, OutputDeclaration } from './types.js';

export const JUDGES: Readonly<Record<CheckName, { judge: Judge; needs?: JudgeNeeds }>> = {
  sections: { judge: sections },
  filler: { judge: filler },
  placeholders: { judge: placeholders },
  'self-check': { judge: selfCheck },
  'acceptance-ids': { judge: acceptanceIdsJudge },
  'acceptance-trace': { judge: acceptanceTrace, needs: { acceptance: true } },
  'exit-code': { judge: exitCode, needs: { runs: true } },
  'task-index': { judge: taskIndex, needs: { siblings: true, taskFiles: true } },
};

export { ACCEPTANCE_FILE };

/** The judges an output runs, in the order declared: `sections` and `filler` first when it lists sections (real content is asked for). */
export function checksOf(output: OutputDeclaration): string[] {
  const named = output.checks.filter((c): c is CheckName => Object.hasOwn(JUDGES, c));
  if (output.sections.length === 0) return named;
  const implied = (['sections', 'filler'] as const).filter((c) => !named.includes(c));
  return [...implied, ...named];
}

/** What the outputs' judges need gathered beside each file. */
export function needsOf(outputs: readonly OutputDeclaration[]): JudgeNeeds {
  const needs: JudgeNeeds = {};
  for (const output of outputs) for (const name of checksOf(output)) Object.assign(needs, JUDGES[name as CheckName].needs);
  return needs;
}

/** Every finding of one file of one output. */
export function judgeFile(input: JudgeInput): Finding[] {
  return checksOf(input.output).flatMap((name) => JUDGES[name as CheckName].judge(input));
}

export type { CommandRun, Finding, Judge, JudgeInput, JudgeNeeds, OutputDeclaration, SkillOutputs, TaskFile, Totals, VerifyFacts } from './types.js';
export { fresh, type FileHashes, type FreshInput } from './fresh.js';
export { draftCopy, type Draft } from './draft-copy.js';
export { comparable } from './fold.js';
export { totalsText } from './totals.js';
export { readTotals, RUNNERS, type RunnerTotals } from './runners/index.js';
