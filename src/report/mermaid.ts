/** The report's flow as a Mermaid `flowchart TD`: a node per step, coloured by status, with its decision, boundary and loop edges. */
import { oneLine } from './one-line.js';
import { STATE_COLOUR, STATE_LABEL, type ReportEdge, type ReportModel, type StepState } from './report-model.js';

const CLASS: Record<StepState, string> = { done: 'done', skipped: 'skipped', in_progress: 'inProgress', failed: 'failed', not_started: 'notStarted' };

/**
 * Text safe inside a quoted Mermaid label: one line, and every character that
 * could close the label, open markup or start an entity written as an entity
 * code (`#quot;`, `#35;`…), which Mermaid shows as the character itself.
 */
export function mermaidText(text: string): string {
  return oneLine(text)
    .replace(/["#<>`|[\]{}()\\&;]/g, (c) => `#${c.codePointAt(0)};`)
    .trim();
}

const node = (n: number | 'end') => (n === 'end' ? 'finish' : `s${n}`);

function edgeLine(e: ReportEdge): string {
  const arrow = e.kind === 'boundary' || e.kind === 'loop' ? '-.->' : '-->';
  const label = e.label ? `|"${mermaidText(e.label)}"|` : '';
  return `  ${node(e.from)} ${arrow}${label} ${node(e.to)}`;
}

export function renderMermaid(model: ReportModel): string {
  const lines = ['flowchart TD'];
  for (const s of model.steps) {
    const extra = [s.runs, s.current ? `▶ ${STATE_LABEL[s.state]}` : ''].filter(Boolean).join(' · ');
    lines.push(`  ${node(s.number)}["${mermaidText(`${s.number} · ${s.name}${extra ? ` (${extra})` : ''}`)}"]`);
  }
  // A step that walks a task index: a sub-diagram of its batches, in order, coloured like the steps.
  for (const b of model.batches ?? []) {
    lines.push(`  subgraph s${b.step}b["${mermaidText(`${b.step} · ${b.name}: batches`)}"]`);
    for (const r of b.rows) lines.push(`    s${b.step}b${r.batch}["${mermaidText(`batch ${r.batch} · ${r.tasks.join(', ')} (${STATE_LABEL[r.state]})`)}"]`);
    for (const r of b.rows.slice(1)) lines.push(`    s${b.step}b${r.batch - 1} --> s${b.step}b${r.batch}`);
    lines.push('  end', `  s${b.step} -.- s${b.step}b`);
  }
  if (model.ends) lines.push(`  finish(["end"])`);
  for (const e of model.edges) lines.push(edgeLine(e));
  for (const state of Object.keys(CLASS) as StepState[]) {
    const c = STATE_COLOUR[state];
    lines.push(`  classDef ${CLASS[state]} fill:${c.fill},stroke:${c.stroke},color:${c.text}`);
  }
  for (const state of Object.keys(CLASS) as StepState[]) {
    const ids = [
      ...model.steps.filter((s) => s.state === state).map((s) => node(s.number)),
      ...(model.batches ?? []).flatMap((b) => b.rows.filter((r) => r.state === state).map((r) => `s${b.step}b${r.batch}`)),
    ];
    if (ids.length > 0) lines.push(`  class ${ids.join(',')} ${CLASS[state]}`);
  }
  return lines.join('\n') + '\n';
}
