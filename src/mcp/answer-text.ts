/**
 * The text content of a tool's answer, for clients that show the model only
 * text: the answer in a few lines, read from the same JSON the structured
 * content carries — where the work stands, the skill to read, what finishes
 * the step, and, when a person must answer, the question, each option, the
 * recommendation and who answers how. Never a banner or a box: the CLI's text
 * is drawn for a terminal (a decision opens with a row of `═`).
 *
 * An answer without a position (`check`, `log`, `report`, …) is the CLI's
 * first line that says something. Pure.
 */

interface Decision {
  question?: string;
  options?: { option?: string; choice?: string }[];
  recommendation?: { option?: string; reason?: string };
  answer_with?: string;
}

interface Answer {
  flow?: string;
  step?: number | 'done';
  name?: string;
  status?: string;
  steps?: number;
  sub_step?: string;
  cycle?: number;
  outcome?: string;
  action?: string;
  skill?: string;
  done_when?: string[];
  resume?: string;
  message?: string;
  missing?: string[];
  reason?: string;
  checkpoint?: string;
  drift?: unknown[];
  notices?: unknown[];
  decision?: Decision;
  boundary?: {
    after?: { step?: number; name?: string };
    next?: { step?: number | 'done'; name?: string };
    message?: string;
    decision?: Decision;
    summary?: { file?: string; tasks?: number; batches?: number; problem?: string };
  };
  boundary_pending?: { decision?: Decision };
  fork_pending?: { decision?: Decision };
  error?: { code?: string; message?: string };
}

/** A line of the CLI's text that says something: not blank, not a rule of box characters. */
const says = (line: string) => /[\p{L}\p{N}]/u.test(line);

const oneLine = (text: string) => text.replace(/\s*\n\s*/g, ' ').trim();

function decisionLines(d: Decision): string[] {
  const lines: string[] = [];
  if (d.question) lines.push(`Question: ${oneLine(d.question)}`);
  for (const o of d.options ?? []) lines.push(`  ${o.option ?? '?'}) ${oneLine(o.choice ?? '')}`);
  if (d.recommendation?.option) lines.push(`Recommended: ${d.recommendation.option}${d.recommendation.reason ? ` — ${oneLine(d.recommendation.reason)}` : ''}`);
  if (d.answer_with) lines.push(`Answer: ${oneLine(d.answer_with)}`);
  return lines;
}

export function answerText(json: unknown, cliText: string): string {
  const a = (json && typeof json === 'object' ? json : {}) as Answer;
  const first = cliText.split('\n').find(says)?.trim() ?? '';
  if (a.flow === undefined || a.step === undefined) return first;

  const lines: string[] = [];
  // A step command's own line (`✓ Completed step 2 Research.`) says what it did; the rest is read from the answer.
  if (first.startsWith('✓')) lines.push(first);
  const outcome = a.outcome ? ` · ${a.outcome}${a.action ? ` (${a.action})` : ''}` : '';
  const cycle = a.cycle && a.cycle > 1 ? `, cycle ${a.cycle}` : '';
  lines.push(
    a.step === 'done'
      ? `${a.flow}: done${outcome}`
      : `Step ${a.step}${a.steps ? ` of ${a.steps}` : ''} · ${a.name ?? ''} (${a.flow}${cycle}): ${a.status ?? ''}${outcome}`,
  );
  if (a.error?.message) lines.push(`${a.error.code ?? 'error'}: ${oneLine(a.error.message)}`);
  if (a.message) lines.push(oneLine(a.message));
  if (a.skill) lines.push(`Read: ${a.skill}`);
  if (a.done_when?.length) lines.push(`Done when: ${a.done_when.join(', ')}`);
  if (a.missing?.length) lines.push(`Missing: ${a.missing.join(', ')}`);
  if (a.resume) lines.push(`Resume: ${oneLine(a.resume)}`);
  else if (a.outcome === 'work' && a.sub_step && a.sub_step !== '0') lines.push(`Sub-step: ${a.sub_step}`);
  if (a.boundary?.after && a.boundary.next)
    lines.push(`Boundary after step ${a.boundary.after.step} (${a.boundary.after.name}); next: step ${a.boundary.next.step} (${a.boundary.next.name})`);
  if (a.boundary?.message) lines.push(oneLine(a.boundary.message));
  const summary = a.boundary?.summary;
  if (summary?.file)
    lines.push(`Summary: ${summary.file}: ${summary.problem ? oneLine(summary.problem) : `${summary.tasks} tasks in ${summary.batches} batches`}`);
  const decision = a.decision ?? a.boundary?.decision ?? a.boundary_pending?.decision ?? a.fork_pending?.decision;
  if (decision) lines.push(...decisionLines(decision));
  if (a.reason) lines.push(`Reason: ${oneLine(a.reason)}`);
  if (a.checkpoint) lines.push(`Checkpoint: ${a.checkpoint}`);
  const problems = (a.drift?.length ?? 0) + (a.notices?.length ?? 0);
  if (problems > 0) lines.push(`Problems: ${problems} (drift, notices in the structured content)`);
  return lines.join('\n');
}
