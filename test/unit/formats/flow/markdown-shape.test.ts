import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { markdownShapeProblem } from '../../../../src/formats/flow/markdown-shape.js';
import { MARKDOWN_LIMITS as LIMIT } from '../../../../src/limits.js';

const FILE = '.autopilot/flows/demo.md';
const shape = (text: string) => markdownShapeProblem(text, FILE);
/** Line 3 of a small text holds `line`. */
const third = (line: string) => `# Title\n\n${line}\nafter\n`;

describe('the shape limits', () => {
  it('let the built-in flows through', () => {
    for (const id of ['greenfield', 'existing-code'])
      expect(shape(readFileSync(join(import.meta.dirname, '../../../../flows', `${id}.md`), 'utf8'))).toBeUndefined();
  });

  it('refuse block quotes nested deeper than the limit, naming the line', () => {
    expect(shape(third(`${'> '.repeat(LIMIT.quoteDepth)}x`))).toBeUndefined();
    expect(shape(third(`${'>'.repeat(LIMIT.quoteDepth + 1)} x`))).toMatchObject({
      file: FILE,
      line: 3,
      message: expect.stringContaining(`nested ${LIMIT.quoteDepth + 1} deep`),
    });
  });

  it('refuse lines indented or nested past the limit: nested lists, lists in quotes, tabs', () => {
    expect(shape(third(`${' '.repeat(LIMIT.indentColumns)}x`))).toBeUndefined();
    expect(shape(third(`${' '.repeat(LIMIT.indentColumns + 1)}x`))?.line).toBe(3);
    const list = Array.from({ length: 40 }, (_, i) => `${'  '.repeat(i)}- item`).join('\n');
    expect(shape(list)).toMatchObject({ line: LIMIT.indentColumns / 2 + 1, message: expect.stringContaining('columns deep') });
    expect(shape(third(`${'> - '.repeat(LIMIT.indentColumns / 4 + 1)}x`))?.line).toBe(3);
    expect(shape(third(`${'\t'.repeat(LIMIT.indentColumns / 4 + 1)}x`))?.line).toBe(3);
  });

  it('refuse a run of emphasis markers longer than the limit, whatever else is on the line', () => {
    expect(shape(third(`a ${'*'.repeat(LIMIT.markerRun)} b`))).toBeUndefined();
    expect(shape(third(`a ${'_'.repeat(LIMIT.markerRun + 1)} b`))).toMatchObject({
      line: 3,
      message: expect.stringContaining(`run of ${LIMIT.markerRun + 1}`),
    });
    // Named as a run, not as a long line: the more useful message.
    expect(shape(third(`${'*'.repeat(10_000)}word${'*'.repeat(10_000)}`))?.message).toContain('a run of 10000 emphasis markers');
  });

  it('refuse a line longer than the limit', () => {
    expect(shape(third('a'.repeat(LIMIT.lineLength)))).toBeUndefined();
    expect(shape(third('a'.repeat(LIMIT.lineLength + 1)))).toMatchObject({ line: 3, received: `${LIMIT.lineLength + 1} characters` });
  });

  it('count lines as Markdown does: \\n, \\r\\n and a lone \\r', () => {
    expect(shape('a\n'.repeat(LIMIT.lines - 1))).toBeUndefined();
    for (const ending of ['\n', '\r\n', '\r']) expect(shape(`a${ending}`.repeat(LIMIT.lines))).toMatchObject({ line: LIMIT.lines + 1 });
    expect(shape(`a\r${'>'.repeat(LIMIT.quoteDepth + 1)} x`)?.line).toBe(2);
  });

  it('refuse more list items and quote markers than the limit in the file', () => {
    expect(shape('- a\n'.repeat(LIMIT.containers))).toBeUndefined();
    expect(shape('- a\n'.repeat(LIMIT.containers + 1))).toMatchObject({ line: LIMIT.containers + 1, message: expect.stringContaining('list items') });
  });

  it('refuse more emphasis markers than the limit in the file, but not underscores inside words', () => {
    expect(shape('`00_problem/solution_draft.md`\n'.repeat(LIMIT.emphasisMarkers))).toBeUndefined();
    expect(shape('*a* '.repeat(LIMIT.emphasisMarkers / 2))).toBeUndefined();
    expect(shape(`${'*a* '.repeat(LIMIT.emphasisMarkers / 4)}\n${'_a_ '.repeat(LIMIT.emphasisMarkers / 4)}\n~`)).toMatchObject({ line: 3 });
  });

  it('refuse more brackets, table pipes or inline markup than the limits in the file', () => {
    expect(shape('[a](b)\n'.repeat(LIMIT.brackets / 2))).toBeUndefined();
    expect(shape('[a](b)\n'.repeat(LIMIT.brackets / 2 + 1))?.message).toContain('brackets');
    expect(shape('| a |\n'.repeat(LIMIT.pipes / 2 + 1))?.message).toContain('table pipes');
    for (const markup of ['`a`', '<b>', '&amp;', '\\#', 'a@b.co', 'www.a.co', 'http://a.co']) {
      const line = `${markup} `.repeat(10);
      const perLine = markup === '`a`' ? 20 : 10;
      const lines = Math.ceil((LIMIT.inlineMarkup + 1) / perLine);
      expect(shape(`${line}\n`.repeat(lines - 1)), markup).toBeUndefined();
      expect(shape(`${line}\n`.repeat(lines)), markup).toMatchObject({ line: lines, message: expect.stringContaining('backticks') });
    }
  });

  it('take time in proportion to the text: a megabyte is judged in a few milliseconds', () => {
    const text = 'plain prose, nothing to count\n'.repeat(35_000);
    const start = performance.now();
    expect(shape(text)?.message).toContain('more than 1000 lines');
    expect(shape(text.replace(/\n/g, ' '))?.message).toContain('longer than');
    // A guard against a quadratic scan (minutes for a megabyte), not a measure: loose enough for a loaded machine.
    expect(performance.now() - start).toBeLessThan(2000);
  });
});
