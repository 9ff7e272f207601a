/**
 * The report as one self-contained HTML page: the flow drawn as inline SVG
 * (one column of boxes, arrows between them, loops on the right), inline CSS,
 * no script and no network (a Content-Security-Policy forbids both). Every
 * text from the journal or the flow is escaped.
 */
import { shortTime, where } from './markdown.js';
import { STATE_COLOUR, STATE_LABEL, type ReportEdge, type ReportModel, type StepState } from './report-model.js';

export function esc(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.codePointAt(0)};`);
}

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

const BOX = { x: 40, w: 340, h: 44, gap: 44 };
const top = (i: number) => 20 + i * (BOX.h + BOX.gap);
const mid = BOX.x + BOX.w / 2;

function svgEdges(model: ReportModel, indexOf: (to: number | 'end') => number): string[] {
  const out: string[] = [];
  // Edges to the node below share one arrow; their labels are joined.
  const down = new Map<number, ReportEdge[]>();
  let lane = 0;
  for (const e of model.edges) {
    const from = indexOf(e.from);
    const to = indexOf(e.to);
    if (to === from + 1) {
      down.set(from, [...(down.get(from) ?? []), e]);
      continue;
    }
    // A repeat or a loop back: out on the right, along a lane of its own, and in again.
    lane += 1;
    const x = BOX.x + BOX.w + 24 * lane;
    const y1 = top(from) + BOX.h / 2 + (e.kind === 'repeat' ? -8 : 0);
    const y2 = top(to) + BOX.h / 2 + (e.kind === 'repeat' ? 8 : 0);
    const dash = e.kind === 'loop' ? ' stroke-dasharray="6 4"' : '';
    out.push(
      `<path class="edge edge-${e.kind}" d="M${BOX.x + BOX.w} ${y1} H${x} V${y2} H${BOX.x + BOX.w + 2}" fill="none" stroke="#546e7a" stroke-width="1.5"${dash} marker-end="url(#arrow)"><title>${esc(e.label)}</title></path>`,
      `<text class="edge-label" x="${x + 6}" y="${(y1 + y2) / 2}" font-size="11" fill="#37474f">${esc(clip(e.label, 34))}</text>`,
    );
  }
  for (const [from, edges] of down) {
    const y1 = top(from) + BOX.h;
    const y2 = top(from + 1) - 2;
    const boundary = edges.some((e) => e.kind === 'boundary');
    const label = edges
      .map((e) => e.label)
      .filter(Boolean)
      .join(' / ');
    out.push(
      `<path class="edge edge-${edges[0]!.kind}" d="M${mid} ${y1} V${y2}" stroke="#546e7a" stroke-width="1.5"${boundary ? ' stroke-dasharray="6 4"' : ''} marker-end="url(#arrow)"><title>${esc(label)}</title></path>`,
    );
    if (label) out.push(`<text class="edge-label" x="${mid + 8}" y="${(y1 + y2) / 2 + 4}" font-size="11" fill="#37474f">${esc(clip(label, 56))}</text>`);
  }
  return out;
}

/** The flow as an SVG: one `g.step` per step (`data-step`, `data-status`), filled with its status's colour. */
export function renderSvg(model: ReportModel): string {
  const count = model.steps.length + (model.ends ? 1 : 0);
  const indexOf = (to: number | 'end') => (to === 'end' ? model.steps.length : to - 1);
  const loops = model.edges.filter((e) => indexOf(e.to) !== indexOf(e.from) + 1).length;
  const width = BOX.x + BOX.w + 24 * loops + 240;
  const height = top(count) - BOX.gap + 20;
  const nodes = model.steps.map((s) => {
    const c = STATE_COLOUR[s.state];
    const y = top(s.number - 1);
    const label = `${s.number} · ${s.name}`;
    const retries = s.current && model.position.retryCount > 0 ? `${model.position.retryCount} of 3 attempts failed` : '';
    const sub = [STATE_LABEL[s.state], retries, s.runs].filter(Boolean).join(' · ');
    return [
      `<g class="step${s.current ? ' current' : ''}" data-step="${s.number}" data-status="${s.state}">`,
      `<title>${esc(`${label} — ${sub}`)}</title>`,
      `<rect x="${BOX.x}" y="${y}" width="${BOX.w}" height="${BOX.h}" rx="8" fill="${c.fill}" stroke="${s.current ? '#ff8f00' : c.stroke}" stroke-width="${s.current ? 3 : 1.5}"/>`,
      `<text x="${mid}" y="${y + 19}" text-anchor="middle" font-size="14" font-weight="600" fill="${c.text}">${esc(clip(label, 40))}</text>`,
      `<text x="${mid}" y="${y + 35}" text-anchor="middle" font-size="11" fill="${c.text}">${esc(clip(sub, 52))}</text>`,
      `</g>`,
    ].join('');
  });
  const finish = model.ends
    ? [
        `<g class="finish"><rect x="${mid - 50}" y="${top(model.steps.length) + 6}" width="100" height="${BOX.h - 12}" rx="16" fill="#eceff1" stroke="#546e7a"/>`,
        `<text x="${mid}" y="${top(model.steps.length) + 27}" text-anchor="middle" font-size="13" fill="#37474f">end</text></g>`,
      ].join('')
    : '';
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" class="flow" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="${esc(`The steps of ${model.flow.id}`)}" font-family="system-ui, sans-serif">`,
    '<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0 0 L10 5 L0 10 z" fill="#546e7a"/></marker></defs>',
    ...svgEdges(model, indexOf),
    ...nodes,
    finish,
    '</svg>',
  ].join('\n');
}

const CSS = `
body { font: 15px/1.45 system-ui, sans-serif; color: #263238; margin: 2rem auto; max-width: 1100px; padding: 0 1rem; }
h1 { font-size: 1.5rem; margin-bottom: .2rem; } h2 { font-size: 1.15rem; margin-top: 2rem; border-bottom: 1px solid #cfd8dc; }
.where { color: #455a64; } .muted { color: #78909c; font-size: .85rem; }
.legend span { display: inline-block; margin-right: 1rem; } .legend i { display: inline-block; width: .9rem; height: .9rem; border: 1px solid #90a4ae; vertical-align: -2px; margin-right: .3rem; border-radius: 3px; }
.diagram { overflow-x: auto; }
table { border-collapse: collapse; width: 100%; } th, td { text-align: left; padding: .3rem .5rem; border-bottom: 1px solid #eceff1; vertical-align: top; }
th { background: #f5f7f8; } tr.current td { background: #fff8e1; }
.badge { display: inline-block; white-space: nowrap; padding: 0 .45rem; border-radius: .6rem; font-size: .8rem; border: 1px solid; }
code { background: #f5f7f8; padding: 0 .2rem; border-radius: 3px; }
ol.events { padding-left: 1.2rem; } ol.events li { margin: .15rem 0; }
`;

const badge = (state: StepState) => {
  const c = STATE_COLOUR[state];
  return `<span class="badge" style="background:${c.fill};color:${c.text};border-color:${c.stroke}">${STATE_LABEL[state]}</span>`;
};

export function renderHtml(model: ReportModel): string {
  const rows = model.steps.map(
    (s) =>
      `<tr class="${s.current ? 'current' : ''}" data-step="${s.number}"><td>${s.number}</td><td>${esc(s.name)}${s.runs ? ` <span class="muted">(${esc(s.runs)})</span>` : ''}</td><td>${badge(s.state)}</td><td>${esc(shortTime(s.started))}</td><td>${esc(shortTime(s.finished))}</td><td>${s.attempts || ''}</td><td>${s.sessions.map(esc).join(', ')}</td></tr>`,
  );
  const d = model.openDecision;
  const decision = d
    ? `<p><strong>${esc(d.question)}</strong></p>${d.options.length > 0 ? `<ul>${d.options.map((o) => `<li>${esc(o.letter)}) ${esc(o.choice)} — <code>${esc(o.command)}</code></li>`).join('')}</ul>` : ''}${d.recommendation ? `<p>Recommended: ${esc(d.recommendation)}.</p>` : ''}${d.reason !== undefined ? `<p>Last reason: ${esc(d.reason)}</p>` : ''}<p>A person answers: <code>${esc(d.command)}</code>${d.kind === 'failed' ? ' (then <code>autopilot next</code> tries again)' : ''}.</p>`
    : '<p>None.</p>';
  const events = model.lastEvents.map(
    (e) =>
      `<li>${e.seq ? `<code>#${e.seq}</code> ` : ''}${esc(shortTime(e.at))} · <strong>${esc(e.event)}</strong> · ${esc(e.where)} · ${esc(e.session)}${e.detail ? ` — ${esc(e.detail)}` : ''}</li>`,
  );
  const legend = (Object.keys(STATE_LABEL) as StepState[])
    .map((s) => `<span><i style="background:${STATE_COLOUR[s].fill}"></i>${STATE_LABEL[s]}</span>`)
    .join('');
  const title = `Autopilot report: ${model.flow.title || model.flow.id}`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title>
<style>${CSS}</style>
</head>
<body>
<h1>${esc(title)}</h1>
<p class="where">${esc(where(model))}</p>
<p class="muted">Generated ${esc(shortTime(model.generatedAt))} by <code>autopilot report --html</code>.</p>
<h2>Flow</h2>
<p class="legend">${legend}<span class="muted">dotted: a session boundary or the next cycle</span></p>
<div class="diagram">
${renderSvg(model)}
</div>
<h2>Steps</h2>
<table class="steps">
<thead><tr><th>#</th><th>step</th><th>status</th><th>started</th><th>finished</th><th>attempts</th><th>by</th></tr></thead>
<tbody>
${rows.join('\n')}
</tbody>
</table>
${(model.batches ?? []).map(batchTable).join('')}${model.acceptance ? `<h2>Acceptance criteria</h2>\n<p class="acceptance">${esc(model.acceptance.summary)} (<code>${esc(model.acceptance.file)}</code>).</p>\n` : ''}<h2>Open decisions</h2>
${decision}
<h2>Last actions</h2>
${events.length > 0 ? `<ol class="events">${events.join('\n')}</ol>` : '<p>The journal is empty.</p>'}
</body>
</html>
`;
}

/** A step's batches as a task table, each batch linked to its report (beside this page, under the docs folder). */
function batchTable(b: NonNullable<ReportModel['batches']>[number]): string {
  const rows = b.rows.map(
    (r) =>
      `<tr><td>${r.batch}</td><td>${r.tasks.map(esc).join(', ')}</td><td>${esc(STATE_LABEL[r.state])}</td><td><a href="${esc(encodeURI(r.report))}">${esc(r.report)}</a></td></tr>`,
  );
  return `<h2>Batches of ${b.step} ${esc(b.name)}</h2>\n<table class="batches">\n<thead><tr><th>batch</th><th>tasks</th><th>status</th><th>report</th></tr></thead>\n<tbody>\n${rows.join('\n')}\n</tbody>\n</table>\n`;
}
