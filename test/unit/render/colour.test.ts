/** Colour laid over finished text: each line painted by what it says, the text itself unchanged. */
import { describe, expect, it } from 'vitest';
import { wantsColour } from '../../../src/cli/colour.js';
import { paint, paintError, type Style } from '../../../src/render/colour.js';
import { box } from '../../../src/render/text.js';

const tag: Style = (tones, text) => `<${tones.join('+')}>${text}</>`;
const untag = (text: string) => text.replace(/<[a-z+]*>|<\/>/g, '');

const STATUS = [
  'Autopilot · Greenfield',
  'Step      2 of 10 · Research',
  'Status    failed',
  'Retries   3 of 3',
  'Progress  ✓1 ▶2 ·3 ↷4',
  'Problems',
  '  ! step 2 of greenfield is named "Research", not "Reserch" (repaired and journaled)',
  'Source    state',
].join('\n');

describe('paint', () => {
  it('paints 6 parts of a status screen by their values, and changes no character of it', () => {
    const painted = paint(STATUS, tag);
    expect(untag(painted)).toBe(STATUS);
    expect(painted).toContain('Status    <red+bold>failed</>');
    expect(painted).toContain('Retries   <red+bold>3</> of 3');
    expect(painted).toContain('Progress  <green>✓1</> <cyan+bold>▶2</> <dim>·3</> <yellow>↷4</>');
    expect(painted).toContain('<yellow+bold>Problems</>');
    expect(painted).toContain('<yellow>  ! step 2');
    expect(painted).toContain('\nSource    state');
    expect(paint('Retries   0 of 3\nProblems  none\nStatus    completed', tag)).toBe(
      'Retries   0 of 3\nProblems  <green>none</>\nStatus    <green>completed</>',
    );
  });

  it('paints each of 3 boxes (a decision, a failed step, a new conversation) in its tone, title lines and rules, body plain', () => {
    const decision = box(
      'DECISION REQUIRED: another round of research, or on to the plan with what we have?',
      ['A) another round', 'B) on'],
      ['Recommendation: B — enough'],
    );
    const painted = paint(`✓ Completed step 2 Research.\n${decision}\nA person answers: autopilot decide <A|B>`, tag);
    expect(painted.split('\n').filter((l) => l.startsWith('<yellow+bold>'))).toHaveLength(6);
    expect(painted).toContain('\n A) another round\n');
    expect(painted).toContain('<bold> Recommendation: B — enough</>');
    expect(painted).toContain('<bold>A person answers: autopilot decide <A|B></>');
    expect(painted).toContain('<green>✓ Completed step 2 Research.</>');
    expect(paint(box('STEP FAILED 3 TIMES: step 1', ['x'], ['y']), tag).split('\n')[1]).toBe('<red+bold> STEP FAILED 3 TIMES: step 1</>');
    expect(paint(box('A NEW CONVERSATION FOR step 6', ['x'], ['y']), tag).split('\n')[0]).toMatch(/^<cyan\+bold>═+<\/>$/);
  });

  it('paints an error: each problem line red, expected and received marked, the hint plain', () => {
    const text = 'x.md:3: bad\n  expected: good\n  received: bad\ny.md: worse\n  expected: better\nFix the files named above.';
    const painted = paintError(text, tag);
    expect(untag(painted)).toBe(text);
    expect(painted.split('\n')).toEqual([
      '<red+bold>x.md:3: bad</>',
      '<green>  expected:</> good',
      '<red>  received:</> bad',
      '<red+bold>y.md: worse</>',
      '<green>  expected:</> better',
      'Fix the files named above.',
    ]);
  });
});

describe('wantsColour', () => {
  it('follows Node: FORCE_COLOR forces it (0 and false forbid), else NO_COLOR, NODE_DISABLE_COLORS, TERM=dumb turn it off', () => {
    expect(wantsColour(1, { FORCE_COLOR: '1' })).toBe(true);
    expect(wantsColour(2, { FORCE_COLOR: '' })).toBe(true);
    expect(wantsColour(1, { FORCE_COLOR: '1', NO_COLOR: '1' })).toBe(true);
    expect(wantsColour(1, { FORCE_COLOR: '0' })).toBe(false);
    expect(wantsColour(1, { FORCE_COLOR: 'false' })).toBe(false);
    expect(wantsColour(1, { NO_COLOR: '' })).toBe(false);
    expect(wantsColour(1, { NODE_DISABLE_COLORS: '1' })).toBe(false);
    expect(wantsColour(1, { TERM: 'dumb' })).toBe(false);
  });
});
