/**
 * @vitest-environment jsdom
 * The Mermaid text is checked with Mermaid's own flowchart parser (the
 * `mermaid` package; it needs a DOM, given by jsdom).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { mermaidText, renderMermaid } from '../../../src/report/mermaid.js';
import { builtInFlow } from '../../helpers/engine.js';
import { HOSTILE, model } from './fixtures.js';

type Mermaid = { parse: (text: string) => Promise<{ diagramType: string }> };
let mermaid: Mermaid;

beforeAll(async () => {
  mermaid = ((await import('mermaid')) as unknown as { default: Mermaid }).default;
});

describe('the Mermaid diagram', () => {
  for (const id of ['greenfield', 'existing-code'] as const) {
    it(`parses as a flowchart (${id})`, async () => {
      const text = renderMermaid(model(builtInFlow(id)));
      expect(text.startsWith('flowchart TD\n')).toBe(true);
      await expect(mermaid.parse(text)).resolves.toMatchObject({ diagramType: 'flowchart-v2' });
    });
  }

  it('colours the steps by status', () => {
    const text = renderMermaid(model(builtInFlow('greenfield')));
    expect(text).toMatch(/classDef done fill:#2e7d32/);
    expect(text).toContain('class s1,s2 done');
    expect(text).toContain('class s3 inProgress');
    expect(text).toMatch(/s5 -\.->\|"session boundary"\| s6/);
  });

  it('escapes labels: quotes, brackets, markup and entities cannot break out', async () => {
    const flow = builtInFlow('greenfield');
    const hostile = { ...flow, steps: flow.steps.map((s) => ({ ...s, name: HOSTILE })) };
    const text = renderMermaid(model(hostile));
    await expect(mermaid.parse(text)).resolves.toMatchObject({ diagramType: 'flowchart-v2' });
    expect(text).not.toContain('<script');
    expect(text).not.toContain('x"]');
    expect(mermaidText('a "b" [c]\nd')).toBe('a #34;b#34; #91;c#93; d');
  });

  it('the parser refuses broken text (it is a real check)', async () => {
    await expect(mermaid.parse('flowchart TD\n  s1["a"b"] --> ')).rejects.toThrow();
  });
});
