import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parsePointer } from '../../../../src/formats/pointer/parse-pointer.js';
import { STATUSES, type Position } from '../../../../src/formats/pointer/position.js';
import { serializePointer } from '../../../../src/formats/pointer/serialize-pointer.js';
import { FILE, TEMPLATE, TEMPLATE_POSITION } from './pointer-fixtures.js';

const roundTrip = (position: Position, loops: boolean, extraSections?: string) =>
  parsePointer(serializePointer(position, extraSections === undefined ? { loops } : { loops, extraSections }), FILE);

describe('serializePointer', () => {
  it('starts with the contract template, line for line', () => {
    const text = serializePointer(TEMPLATE_POSITION, { loops: false });
    expect(text.startsWith(TEMPLATE)).toBe(true);
    expect(text.split('\n').slice(2, 9)).toEqual([
      '## Current Step',
      'flow: existing-code',
      'step: 2',
      'name: Test Spec',
      'status: failed',
      'sub_step: 1b — Test Case Generation',
      'retry_count: 3',
    ]);
  });

  it('shows a held hand edit in `## Held Edit`, read back as the engine’s section (not a person’s), their own sections kept after it', () => {
    const held = {
      pointer: { flow: 'existing-code', step: 3, name: 'Code Testability Revision', status: 'not_started' as const, sub_step: '0', retry_count: 0, cycle: 1 },
      edited: { step: { was: 2, now: 3 }, status: { was: 'failed', now: 'not_started' } },
      gates: ['step 2 (Test Spec) failed 3 times: only a person’s `autopilot ack` allows another try'],
    };
    const text = serializePointer(TEMPLATE_POSITION, { loops: false, held, extraSections: '## Notes\nfor Dana' });
    expect(text.startsWith(TEMPLATE)).toBe(true);
    expect(text).toContain('## Held Edit\nedited: step 2 → 3, status failed → not_started\nheld: step 2 (Test Spec) failed 3 times');
    expect(text).toContain('`autopilot adopt`');
    const read = parsePointer(text, FILE);
    expect(read.heldSection).toBe(true);
    expect(read.extraSections).toBe('## Notes\nfor Dana');
    expect(read.position).toEqual(TEMPLATE_POSITION);
    expect(parsePointer(serializePointer(TEMPLATE_POSITION, { loops: false, held: null }), FILE).heldSection).toBeUndefined();
  });

  it('keeps the contract lines first even with a cycle and extra sections', () => {
    const text = serializePointer({ ...TEMPLATE_POSITION, cycle: 4 }, { loops: true, extraSections: '## Notes\nhello' });
    expect(text.startsWith(TEMPLATE)).toBe(true);
  });

  it('writes `step: done` for a finished flow', () => {
    expect(serializePointer({ ...TEMPLATE_POSITION, step: 'done' }, { loops: false }).split('\n')[4]).toBe('step: done');
  });

  it('writes a `## Cycle` section only for a looping flow', () => {
    const looping = serializePointer({ ...TEMPLATE_POSITION, cycle: 3 }, { loops: true });
    expect(looping).toContain('\n## Cycle\ncycle: 3\n');
    const straight = serializePointer({ ...TEMPLATE_POSITION, cycle: 1 }, { loops: false });
    expect(straight).not.toContain('## Cycle');
    expect(straight).not.toMatch(/^cycle:/m);
  });

  it('writes a cycle that the parser reads back', () => {
    expect(roundTrip({ ...TEMPLATE_POSITION, cycle: 12 }, true).position.cycle).toBe(12);
  });

  it('keeps the extra sections, after the engine’s own', () => {
    const extra = '## Notes\nAsk about the payment API.\n\n- staging URL pending';
    const text = serializePointer({ ...TEMPLATE_POSITION, cycle: 2 }, { loops: true, extraSections: extra });
    expect(text).toContain(`\n${extra}\n`);
    expect(text.indexOf(extra)).toBeGreaterThan(text.indexOf('## Cycle'));
    expect(parsePointer(text, FILE).extraSections).toBe(extra);
  });

  it('ends with the schema marker the parser accepts', () => {
    const text = serializePointer(TEMPLATE_POSITION, { loops: false });
    expect(text).toMatch(/<!-- autopilot-state v1\b[^\n]*-->\n$/);
  });

  it('flattens newlines in the name and sub_step to one line', () => {
    const position: Position = { ...TEMPLATE_POSITION, name: 'Test\nSpec', subStep: '1b —\r\n   Test Case\n\nGeneration ' };
    const lines = serializePointer(position, { loops: false }).split('\n');
    expect(lines[5]).toBe('name: Test Spec');
    expect(lines[7]).toBe('sub_step: 1b — Test Case Generation');
    expect(lines[8]).toBe('retry_count: 3');
    expect(parsePointer(lines.join('\n'), FILE).position).toMatchObject({ name: 'Test Spec', subStep: '1b — Test Case Generation' });
  });

  it('writes an empty sub_step as 0', () => {
    expect(serializePointer({ ...TEMPLATE_POSITION, subStep: '' }, { loops: false }).split('\n')[7]).toBe('sub_step: 0');
    expect(serializePointer({ ...TEMPLATE_POSITION, subStep: ' \n ' }, { loops: false }).split('\n')[7]).toBe('sub_step: 0');
  });

  // `autopilot substep "**2b** Interview"` stores the text as given; the pointer written for it must read back the same.
  it('reads back a sub_step that starts with Markdown emphasis', () => {
    expect(roundTrip({ ...TEMPLATE_POSITION, subStep: '**2b** Interview' }, false).position.subStep).toBe('**2b** Interview');
  });

  it('reads back a sub_step that ends with Markdown emphasis', () => {
    expect(roundTrip({ ...TEMPLATE_POSITION, subStep: '2 — Restrictions *draft*' }, false).position.subStep).toBe('2 — Restrictions *draft*');
  });
});

// Realistic one-line text: words of letters (some accented or non-Latin), digits and the punctuation
// people put in step names (Markdown emphasis and brackets included), separated by single spaces.
// No `<`, so no text can pass for the schema marker `<!--`.
const wordChar = fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789éüßñçøå中文—–-.,:;()/&+!?\'"`#_%=@*[]'.split(''));
const word = fc.string({ unit: wordChar, minLength: 1, maxLength: 10 });
const text = fc.array(word, { minLength: 1, maxLength: 6 }).map((words) => words.join(' '));

const flowId = fc.stringMatching(/^[a-z0-9][a-z0-9-]{0,24}$/);
const step = fc.oneof(fc.integer({ min: 1, max: 99 }), fc.constant('done' as const));

const pointer = fc
  .record({
    flow: flowId,
    step,
    name: text,
    status: fc.constantFrom(...STATUSES),
    subStep: fc.oneof(fc.constant('0'), text),
    retryCount: fc.integer({ min: 0, max: 3 }),
    loops: fc.boolean(),
    cycle: fc.integer({ min: 1, max: 1000 }),
  })
  // The engine never writes three failed attempts on a step that is not `failed` (the reader takes it as failed).
  .filter(({ retryCount, status }) => retryCount < 3 || !['in_progress', 'not_started'].includes(status))
  .map(({ loops, cycle, ...rest }) => ({ loops, position: { ...rest, cycle: loops ? cycle : 1 } satisfies Position }));

// Extra sections in the form the parser returns them: a heading, lines of text (blank lines only
// inside), no trailing blanks, sections one after another.
const reservedTitle = /^(current step|cycle|autopilot state)$/i;
const heading = fc
  .tuple(fc.constantFrom('#', '##', '###', '####'), text)
  .filter(
    ([, title]) =>
      !reservedTitle.test(
        title
          .replace(/[\s#]*$/, '')
          .replace(/\s+/g, ' ')
          .trim(),
      ),
  )
  .map(([hashes, title]) => `${hashes} ${title}`);
const bodyLine = fc.oneof(
  fc.constant(''),
  text.filter((t) => !t.startsWith('#')),
  text.map((t) => `- ${t}`),
  text.map((t) => `  - [ ] ${t} *soon*`),
  fc.constant('<!-- a comment of their own -->'),
);
const section = fc.tuple(heading, fc.array(bodyLine, { maxLength: 5 })).map(([h, body]) => [h, ...body].join('\n').trimEnd());
const extraSections = fc.array(section, { minLength: 1, maxLength: 4 }).map((sections) => sections.join('\n'));

describe('serializePointer and parsePointer together', () => {
  it('read back every valid position the engine can write', () => {
    fc.assert(
      fc.property(pointer, ({ position, loops }) => {
        expect(roundTrip(position, loops).position).toEqual(position);
      }),
      { numRuns: 500 },
    );
  });

  it('keep extra sections across a rewrite, and the position with them', () => {
    fc.assert(
      fc.property(pointer, extraSections, ({ position, loops }, extras) => {
        const parsed = roundTrip(position, loops, extras);
        expect(parsed.extraSections).toBe(extras);
        expect(parsed.position).toEqual(position);
      }),
      { numRuns: 300 },
    );
  });

  it('write the same text again for what they read (a rewrite changes nothing)', () => {
    fc.assert(
      fc.property(pointer, fc.option(extraSections, { nil: undefined }), ({ position, loops }, extras) => {
        const once = serializePointer(position, extras === undefined ? { loops } : { loops, extraSections: extras });
        const parsed = parsePointer(once, FILE);
        expect(serializePointer(parsed.position, { loops, extraSections: parsed.extraSections })).toBe(once);
      }),
      { numRuns: 200 },
    );
  });
});
