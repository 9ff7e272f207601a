import { describe, expect, it } from 'vitest';
import { parsePointer } from '../../../../src/formats/pointer/parse-pointer.js';
import { FILE, LINE, TEMPLATE, TEMPLATE_POSITION, editLine, onlyProblemOf, problemsOf } from './pointer-fixtures.js';

/** The template with one failed attempt, so an in-progress status reads as written. */
const RETRY_1 = TEMPLATE.replace('retry_count: 3', 'retry_count: 1');

describe('parsePointer: the contract template', () => {
  it('reads the exact template into the position', () => {
    const parsed = parsePointer(TEMPLATE, FILE);
    expect(parsed.position).toEqual({
      flow: 'existing-code',
      step: 2,
      name: 'Test Spec',
      status: 'failed',
      subStep: '1b — Test Case Generation',
      retryCount: 3,
      cycle: 1,
    });
    expect(parsed.extraSections).toBe('');
  });

  it('records the line of every key, and 0 for a cycle the file does not state', () => {
    expect(parsePointer(TEMPLATE, FILE).lines).toEqual({ flow: 4, step: 5, name: 6, status: 7, sub_step: 8, retry_count: 9, cycle: 0 });
  });

  it('reads `step: done` as the finished flow', () => {
    expect(parsePointer(editLine(LINE.step, 'step: done'), FILE).position.step).toBe('done');
    expect(parsePointer(editLine(LINE.step, 'step: Done'), FILE).position.step).toBe('done');
  });

  it('reads every status the engine writes', () => {
    for (const status of ['not_started', 'in_progress', 'completed', 'skipped', 'failed'] as const) {
      const text = editLine(LINE.status, `status: ${status}`).replace('retry_count: 3', 'retry_count: 1');
      expect(parsePointer(text, FILE).position.status).toBe(status);
    }
  });

  it('reads three failed attempts as the failed step they are, whatever the status line says (a hand edit, a merge)', () => {
    for (const status of ['not_started', 'in_progress'] as const) {
      const parsed = parsePointer(editLine(LINE.status, `status: ${status}`), FILE);
      expect(parsed.position).toMatchObject({ status: 'failed', retryCount: 3 });
    }
  });

  it('reads retry counts 0 to 3 and any step number from 1', () => {
    for (const n of [0, 1, 2, 3]) expect(parsePointer(editLine(LINE.retry_count, `retry_count: ${n}`), FILE).position.retryCount).toBe(n);
    expect(parsePointer(editLine(LINE.step, 'step: 14'), FILE).position.step).toBe(14);
  });

  it('keeps a value that itself holds a colon', () => {
    expect(parsePointer(editLine(LINE.sub_step, 'sub_step: 2 — Restrictions: budget'), FILE).position.subStep).toBe('2 — Restrictions: budget');
  });

  it('reads an empty sub_step as 0', () => {
    expect(parsePointer(editLine(LINE.sub_step, 'sub_step:'), FILE).position.subStep).toBe('0');
  });
});

describe('parsePointer: hand edits read leniently', () => {
  it('reads bullets before the keys', () => {
    const bulleted = TEMPLATE.replace(/^(flow|step|name|status|sub_step|retry_count):/gm, '- $1:');
    expect(bulleted).toContain('- flow: existing-code');
    expect(parsePointer(bulleted, FILE).position).toEqual(TEMPLATE_POSITION);
    const starred = TEMPLATE.replace(/^(flow|step):/gm, '* $1:');
    expect(parsePointer(starred, FILE).position).toEqual(TEMPLATE_POSITION);
  });

  it('reads bold keys, bold on either side of the colon, and bullets with bold keys', () => {
    expect(parsePointer(editLine(LINE.status, '**status**: in_progress', RETRY_1), FILE).position.status).toBe('in_progress');
    expect(parsePointer(editLine(LINE.status, '**status:** in_progress', RETRY_1), FILE).position.status).toBe('in_progress');
    expect(parsePointer(editLine(LINE.status, '- **Status**: completed'), FILE).position.status).toBe('completed');
    expect(parsePointer(editLine(LINE.flow, '**flow**: greenfield'), FILE).position.flow).toBe('greenfield');
  });

  it('reads `Sub-step:`, `Retry Count:` and other spellings of the keys', () => {
    let text = editLine(LINE.sub_step, 'Sub-step: 1b — Test Case Generation');
    text = editLine(LINE.retry_count, 'Retry Count: 2', text);
    text = editLine(LINE.flow, 'FLOW: existing-code', text);
    expect(parsePointer(text, FILE).position).toEqual({ ...TEMPLATE_POSITION, retryCount: 2 });
    expect(parsePointer(editLine(LINE.sub_step, 'sub step: 4'), FILE).position.subStep).toBe('4');
    expect(parsePointer(editLine(LINE.retry_count, 'retry-count: 1'), FILE).position.retryCount).toBe(1);
  });

  it('reads statuses written with spaces, dashes or capitals', () => {
    expect(parsePointer(editLine(LINE.status, 'status: In Progress', RETRY_1), FILE).position.status).toBe('in_progress');
    expect(parsePointer(editLine(LINE.status, 'status: in-progress', RETRY_1), FILE).position.status).toBe('in_progress');
    expect(parsePointer(editLine(LINE.status, 'status: NOT STARTED', RETRY_1), FILE).position.status).toBe('not_started');
    expect(parsePointer(editLine(LINE.status, 'status:   Completed  '), FILE).position.status).toBe('completed');
  });

  it('reads a file with extra blank lines between and around the keys', () => {
    const spaced = `\n\n# Autopilot State\n\n\n## Current Step\n\nflow: existing-code\n\nstep: 2\nname: Test Spec\n\n\nstatus: failed\nsub_step: 1b — Test Case Generation\n\nretry_count: 3\n\n\n`;
    const parsed = parsePointer(spaced, FILE);
    expect(parsed.position).toEqual(TEMPLATE_POSITION);
    expect(parsed.lines.status).toBe(14);
  });

  it('reads CRLF line endings, with the same line numbers', () => {
    const parsed = parsePointer(TEMPLATE.replace(/\n/g, '\r\n'), FILE);
    expect(parsed.position).toEqual(TEMPLATE_POSITION);
    expect(parsed.lines).toMatchObject({ flow: 4, status: 7, retry_count: 9 });
    expect(parsed.position.subStep).not.toContain('\r');
  });

  it('reports CRLF files with the right line numbers too', () => {
    const problem = onlyProblemOf(editLine(LINE.status, 'status: halfway').replace(/\n/g, '\r\n'));
    expect(problem).toMatchObject({ file: FILE, line: LINE.status, received: 'halfway' });
  });

  it('keeps a section after the Current Step verbatim in extraSections', () => {
    const parsed = parsePointer(`${TEMPLATE}\n## Notes\nAsk the client about the payment API.\n- and the *staging* URL\n`, FILE);
    expect(parsed.position).toEqual(TEMPLATE_POSITION);
    expect(parsed.extraSections).toBe('## Notes\nAsk the client about the payment API.\n- and the *staging* URL');
  });

  it('keeps a section placed before the Current Step as well', () => {
    const text = TEMPLATE.replace('## Current Step', '## Notes\nwritten first\n\n## Current Step');
    const parsed = parsePointer(text, FILE);
    expect(parsed.position).toEqual(TEMPLATE_POSITION);
    expect(parsed.extraSections).toBe('## Notes\nwritten first');
  });

  it('keeps the text of several extra sections, in order', () => {
    const parsed = parsePointer(`${TEMPLATE}\n## Notes\nfirst note\n\n### Links\n- https://example.com\n`, FILE);
    const nonBlank = parsed.extraSections.split('\n').filter((l) => l.trim() !== '');
    expect(nonBlank).toEqual(['## Notes', 'first note', '### Links', '- https://example.com']);
  });

  it('reads the cycle from a `## Cycle` section, and does not keep that section as extra', () => {
    const text = `${TEMPLATE}\n## Cycle\ncycle: 2\n`;
    const parsed = parsePointer(text, FILE);
    expect(parsed.position).toEqual({ ...TEMPLATE_POSITION, cycle: 2 });
    expect(parsed.lines.cycle).toBe(12);
    expect(parsed.extraSections).toBe('');
  });

  it('reads a bulleted or bold cycle line too', () => {
    expect(parsePointer(`${TEMPLATE}\n## Cycle\n- **cycle**: 17\n`, FILE).position.cycle).toBe(17);
  });

  it("reads seed 000's names as the engine's own: `cycle_number` (1 line) and the 4 lines of the last action", () => {
    const text = `${TEMPLATE}\n## Cycle\ncycle_number: 4\n\n## Last Action\nlast_action: done step 2 (Research)\nlast_action_result: success\ntimestamp: 2026-11-26T10:00:00.000Z\nnext_target: step 3 (Plan)\n`;
    const parsed = parsePointer(text, FILE);
    expect(parsed.position.cycle).toBe(4);
    expect(parsed.lastAction).toEqual({
      action: 'done step 2 (Research)',
      result: 'success',
      at: '2026-11-26T10:00:00.000Z',
      next: 'step 3 (Plan)',
      nextStep: 3,
    });
    expect(parsed.extraSections).toBe('');
  });

  it('accepts the schema marker comment the engine writes, anywhere in the file', () => {
    const marker = '<!-- autopilot-state v1: written by autopilot; `autopilot check` validates hand edits -->';
    expect(parsePointer(`${TEMPLATE}\n${marker}\n`, FILE).position).toEqual(TEMPLATE_POSITION);
    expect(parsePointer(`${marker}\n${TEMPLATE}`, FILE).position).toEqual(TEMPLATE_POSITION);
    expect(parsePointer(`${TEMPLATE}\n<!-- autopilot-state v1 -->\n`, FILE).extraSections).toBe('');
  });

  it('does not copy the schema marker into extraSections', () => {
    const parsed = parsePointer(`${TEMPLATE}\n## Notes\nkeep me\n\n<!-- autopilot-state v1 -->\n`, FILE);
    expect(parsed.extraSections).toBe('## Notes\nkeep me');
  });
});

describe('parsePointer: errors name the file, the line, what was expected and what was found', () => {
  it('refuses a file without `## Current Step`', () => {
    const problem = onlyProblemOf(TEMPLATE.replace('## Current Step', '## Current Stage'));
    expect(problem.file).toBe(FILE);
    expect(problem.line).toBe(1);
    expect(problem.message).toMatch(/no `## Current Step` section/);
    expect(problem.expected).toContain('## Current Step');
    expect(problem.expected).toContain('flow: greenfield');
    expect(problem.expected).toContain('retry_count: 0');
    expect(problem.received).toBe('`Autopilot State` (line 1), `Current Stage` (line 3)');
  });

  it('refuses an empty file', () => {
    expect(onlyProblemOf('')).toMatchObject({ file: FILE, line: 1, message: expect.stringMatching(/no `## Current Step`/) });
  });

  it('refuses two `## Current Step` sections, naming the second and listing both', () => {
    const text = `${TEMPLATE}\n## Current Step\nflow: greenfield\n`;
    const problem = onlyProblemOf(text);
    expect(problem.line).toBe(11);
    expect(problem.message).toMatch(/more than one `## Current Step`/);
    expect(problem.received).toBe('sections at lines 3, 11');
  });

  it('names a missing key, at the line of the section heading', () => {
    const problem = onlyProblemOf(editLine(LINE.retry_count, null));
    expect(problem).toMatchObject({ file: FILE, line: LINE.heading, received: 'no such line' });
    expect(problem.message).toContain('`retry_count` is missing');
    expect(problem.expected).toBe('a line `retry_count: 0`');
  });

  it('names every missing key', () => {
    const text = '# Autopilot State\n\n## Current Step\nflow: greenfield\n';
    const problems = problemsOf(text);
    expect(problems.map((p) => p.message)).toEqual(
      ['step', 'name', 'status', 'sub_step', 'retry_count'].map((key) => `\`${key}\` is missing from Current Step`),
    );
    expect(problems.every((p) => p.line === 3 && p.file === FILE)).toBe(true);
  });

  it('names an unknown key at its line (and the key it displaced as missing)', () => {
    const problems = problemsOf(editLine(LINE.step, 'stpe: 3'));
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatchObject({ file: FILE, line: LINE.step, message: 'unknown key `stpe` in Current Step', received: 'stpe: 3' });
    expect(problems[0]!.expected).toContain('flow, step, name, status, sub_step, retry_count');
    expect(problems[1]).toMatchObject({ line: LINE.heading, message: '`step` is missing from Current Step' });
  });

  it('refuses a line that is not `key: value`', () => {
    const problem = onlyProblemOf(TEMPLATE.replace('retry_count: 3\n', 'retry_count: 3\nremember to ask Bob\n'));
    expect(problem).toMatchObject({ line: 10, message: 'a line that is not `key: value`', received: 'remember to ask Bob' });
  });

  it('refuses a duplicated key at the second line, naming the first', () => {
    const text = TEMPLATE.replace('retry_count: 3\n', 'retry_count: 3\nstatus: in_progress\n');
    const problem = onlyProblemOf(text);
    expect(problem.line).toBe(10);
    expect(problem.message).toBe('`status` is given twice (first at line 7)');
    expect(problem.expected).toBe('each key once');
    expect(problem.received).toBe('status: in_progress');
  });

  it('refuses a duplicated key even when spelled differently', () => {
    const text = TEMPLATE.replace('retry_count: 3\n', 'retry_count: 3\n- **Sub-step**: 2\n');
    expect(onlyProblemOf(text)).toMatchObject({ line: 10, message: '`sub_step` is given twice (first at line 8)' });
  });

  it('refuses an unknown status, listing the known ones', () => {
    const problem = onlyProblemOf(editLine(LINE.status, 'status: halfway'));
    expect(problem).toMatchObject({ file: FILE, line: LINE.status, received: 'halfway' });
    expect(problem.message).toBe('the status is not one autopilot knows');
    expect(problem.expected).toContain('not_started, in_progress, completed, skipped, failed');
  });

  it.each(['4', '7', '12'])('reads retry_count: %s (above 3, by hand) as a failed step at 3, and says so', (value) => {
    const parsed = parsePointer(editLine(LINE.retry_count, `retry_count: ${value}`), FILE);
    expect(parsed.position).toMatchObject({ retryCount: 3, status: 'failed' });
    expect(parsed.readAs).toEqual([`retry_count ${value} is above 3: read as 3, a failed step (line ${LINE.retry_count})`]);
  });

  it.each(['-1', '1.5', 'three', ''])('refuses retry_count: %s', (value) => {
    const problem = onlyProblemOf(editLine(LINE.retry_count, `retry_count: ${value}`));
    expect(problem).toMatchObject({ file: FILE, line: LINE.retry_count, message: 'the retry count is out of range', received: value });
    expect(problem.expected).toContain('from 0 to 3');
  });

  it.each(['0', 'three', '-2', '2.5', ''])('refuses step: %s', (value) => {
    const problem = onlyProblemOf(editLine(LINE.step, `step: ${value}`));
    expect(problem).toMatchObject({ file: FILE, line: LINE.step, message: 'the step is not a step number', received: value });
    expect(problem.expected).toContain('`done`');
    expect(problem.expected).toContain('step: 3');
  });

  it('refuses a flow id that is not an id', () => {
    const problem = onlyProblemOf(editLine(LINE.flow, 'flow: Existing Code'));
    expect(problem).toMatchObject({ line: LINE.flow, received: 'Existing Code' });
    expect(problem.expected).toContain('flow: greenfield');
  });

  it('refuses an unfilled template placeholder', () => {
    const problem = onlyProblemOf(editLine(LINE.flow, 'flow: [greenfield | existing-code]'));
    expect(problem.file).toBe(FILE);
    expect(problem.line).toBe(LINE.flow);
    expect(problem.message).toBe("`flow` still holds the template's placeholder");
    expect(problem.expected).toBe('a value, e.g. `flow: greenfield`');
    expect(problem.received).toBe('[greenfield | existing-code]');
  });

  it('refuses cycle 0, and a cycle that is not a number, in a Cycle section', () => {
    const zero = onlyProblemOf(`${TEMPLATE}\n## Cycle\ncycle: 0\n`);
    expect(zero).toMatchObject({ file: FILE, line: 12, message: 'the cycle is not a cycle number', received: 'cycle: 0' });
    expect(zero.expected).toContain('cycle: 2');
    expect(onlyProblemOf(`${TEMPLATE}\n## Cycle\n\ncycle: second\n`)).toMatchObject({ line: 13, received: 'cycle: second' });
  });

  it('refuses a pointer from a newer autopilot, at the marker line', () => {
    const text = `${TEMPLATE}\n<!-- autopilot-state v9 -->\n`;
    const problem = onlyProblemOf(text);
    expect(problem.file).toBe(FILE);
    expect(problem.line).toBe(11);
    expect(problem.message).toMatch(/newer autopilot/);
    expect(problem.message).toContain('v9');
    expect(problem.expected).toMatch(/upgrade autopilot/);
    expect(problem.received).toBe('<!-- autopilot-state v9 -->');
  });

  it('refuses a newer schema even when everything else is fine and the marker comes first', () => {
    expect(onlyProblemOf(`<!-- autopilot-state v2 -->\n${TEMPLATE}`)).toMatchObject({ line: 1 });
  });

  it('reports every problem of the values at once', () => {
    let text = editLine(LINE.step, 'step: three');
    text = editLine(LINE.status, 'status: halfway', text);
    text = editLine(LINE.retry_count, 'retry_count: -1', text);
    text = `${text}\n## Cycle\ncycle: 0\n`;
    const problems = problemsOf(text);
    expect(problems.map((p) => [p.line, p.received])).toEqual([
      [LINE.step, 'three'],
      [LINE.status, 'halfway'],
      [LINE.retry_count, '-1'],
      [12, 'cycle: 0'],
    ]);
    expect(problems.every((p) => p.file === FILE)).toBe(true);
  });

  it('reports every problem of the keys at once', () => {
    let text = editLine(LINE.name, 'nmae: Test Spec');
    text = editLine(LINE.sub_step, 'flow: greenfield', text);
    const problems = problemsOf(text);
    expect(problems.map((p) => [p.line, p.message])).toEqual([
      [LINE.name, 'unknown key `nmae` in Current Step'],
      [LINE.sub_step, '`flow` is given twice (first at line 4)'],
      [LINE.heading, '`name` is missing from Current Step'],
      [LINE.heading, '`sub_step` is missing from Current Step'],
    ]);
  });

  it('puts file:line, expected and received in the error message a person reads', () => {
    expect(() => parsePointer(editLine(LINE.status, 'status: halfway'), FILE)).toThrow(
      `${FILE}:7: the status is not one autopilot knows\n  expected: one of not_started, in_progress, completed, skipped, failed (e.g. \`status: in_progress\`)\n  received: halfway`,
    );
  });

  it('names the file it was given', () => {
    expect(onlyProblemOf(editLine(LINE.status, 'status: ?'), 'elsewhere/state.md').file).toBe('elsewhere/state.md');
  });
});
