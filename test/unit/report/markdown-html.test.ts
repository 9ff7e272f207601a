import { describe, expect, it } from 'vitest';
import { esc, renderHtml, renderSvg } from '../../../src/report/html.js';
import { mdText, renderMarkdown } from '../../../src/report/markdown.js';
import { builtInFlow } from '../../helpers/engine.js';
import { HOSTILE, model } from './fixtures.js';

const greenfield = builtInFlow('greenfield');

describe('the Markdown report', () => {
  it('has the diagram, the step table, the open decision and the last actions', () => {
    const decision = greenfield.decisions[Object.keys(greenfield.decisions)[0]!]!;
    const md = renderMarkdown(model(greenfield, undefined, { openDecision: decision }));
    expect(md).toContain('```mermaid\nflowchart TD\n');
    expect(md).toMatch(/\| 2 \| Research \| done \| 2026-11-26 09:10:01Z \| 2026-11-26 09:30:00Z \| 2 \| local, second \|/);
    expect(md).toContain(`**${decision.question}**`);
    expect(md).toMatch(/- `#5` 2026-11-26 09:20:00Z · \*\*step\\_failed\*\* · step 2 Research · local — tests red/);
  });

  it('keeps hostile text inside its cell', () => {
    const md = renderMarkdown(model(greenfield, HOSTILE));
    expect(md).not.toContain('<script>');
    const row = md.split('\n').find((l) => l.startsWith('| 1 |'))!;
    expect(row.split(/(?<!\\)\|/).length).toBe(9);
    expect(mdText('a|b\nc')).toBe('a\\|b c');
  });
});

describe('the HTML page', () => {
  it('draws a node per step, coloured by status, and escapes every text', () => {
    const page = renderHtml(model(greenfield, HOSTILE));
    expect(page).not.toMatch(/<script/i);
    expect(page).toContain(esc(HOSTILE));
    expect(page).toContain("default-src 'none'");
    expect(page).not.toMatch(/https?:\/\/(?!www\.w3\.org\/2000\/svg)/);
    const svg = renderSvg(model(greenfield));
    expect(svg.match(/<g class="step/g)).toHaveLength(greenfield.steps.length);
    expect(svg).toMatch(/data-step="1" data-status="done">.*fill="#2e7d32"/s);
    expect(svg).toMatch(/data-step="3" data-status="in_progress">.*fill="#1565c0"/s);
  });

  it('escapes the five characters', () => {
    expect(esc(`<a href="x">'&'</a>`)).toBe('&#60;a href=&#34;x&#34;&#62;&#39;&#38;&#39;&#60;/a&#62;');
  });
});
