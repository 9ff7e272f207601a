import { describe, expect, it } from 'vitest';
import {
  commitText,
  filesByFolder,
  oneLine,
  parseProgressTrailers,
  progressMessage,
  type FileChange,
  type ProgressFacts,
} from '../../src/git/progress-message.js';

const plan: ProgressFacts = { flow: 'greenfield', step: 3, steps: 10, name: 'Plan', status: 'completed', cycle: 1, session: 'local' };

describe('progressMessage', () => {
  it('says flow, step of steps, name and status in the subject, and everything again in trailers', () => {
    const built = progressMessage(plan);
    expect(built.message).toBe('autopilot: greenfield 3/10 Plan completed');
    expect(commitText(built)).toBe(
      [
        'autopilot: greenfield 3/10 Plan completed',
        '',
        'Autopilot-Flow: greenfield',
        'Autopilot-Step: 3',
        'Autopilot-Name: Plan',
        'Autopilot-Status: completed',
        'Autopilot-Cycle: 1',
        'Autopilot-Session: local',
        '',
      ].join('\n'),
    );
  });

  it('reads statuses as words, names the cycle after the first, and says done for a finished flow', () => {
    expect(progressMessage({ ...plan, status: 'in_progress' }).message).toBe('autopilot: greenfield 3/10 Plan in progress');
    expect(progressMessage({ ...plan, flow: 'existing-code', step: 9, steps: 14, name: 'Implement', cycle: 2 }).message).toBe(
      'autopilot: existing-code 9/14 Implement completed (cycle 2)',
    );
    const done = progressMessage({ ...plan, step: 'done', name: 'Done' });
    expect(done.message).toBe('autopilot: greenfield done');
    expect(done.trailers['Autopilot-Step']).toBe('done');
  });

  it('keeps a body between the subject and the trailers, on its own lines', () => {
    const text = commitText(progressMessage({ ...plan, body: 'Files:\r\n- _docs/01_solution/solution.md\n\n\n\nnext: Decompose\u0007' }));
    const [message, trailers] = text.split('\n\nAutopilot-Flow: ');
    expect(message).toBe(['autopilot: greenfield 3/10 Plan completed', '', 'Files:', '- _docs/01_solution/solution.md', '', 'next: Decompose'].join('\n'));
    expect(trailers).toMatch(/^greenfield\nAutopilot-Step: 3\n/);
  });

  it('flattens free text so a name or session cannot break the subject or forge a trailer', () => {
    const built = commitText(progressMessage({ ...plan, name: 'Plan\n\nAutopilot-Step: 9', session: 'a\tb\u0000c\u2028d' }));
    const [subject, blank] = built.split('\n');
    expect(subject).toBe('autopilot: greenfield 3/10 Plan Autopilot-Step: 9 completed');
    expect(blank).toBe('');
    expect(built).toContain('\nAutopilot-Name: Plan Autopilot-Step: 9\n');
    expect(built).toContain('\nAutopilot-Session: a b c d\n');
    expect(built.match(/^Autopilot-Step:/gm)).toHaveLength(1);
    expect(oneLine('x'.repeat(500)).length).toBeLessThanOrEqual(200);
  });

  it('leaves out a trailer with nothing in it, and refuses a trailer name git would not read', () => {
    expect(commitText(progressMessage({ ...plan, session: ' ' }))).not.toContain('Autopilot-Session');
    expect(() => commitText({ message: 'x', trailers: { 'Bad Key': 'v' } })).toThrow(/trailer name/);
    expect(() => commitText({ message: '\n\nbody', trailers: {} })).toThrow(/subject/);
  });
});

describe('parseProgressTrailers', () => {
  const block = (lines: string[]) => lines.join('\n') + '\n';

  it('reads back what progressMessage wrote', () => {
    const text = commitText(progressMessage({ ...plan, name: 'Plan: architecture', cycle: 2, session: 's-1' }));
    expect(parseProgressTrailers(text.slice(text.indexOf('Autopilot-Flow')))).toEqual({
      flow: 'greenfield',
      step: 3,
      name: 'Plan: architecture',
      status: 'completed',
      cycle: 2,
      session: 's-1',
    });
  });

  it('takes keys in any case, a missing name, cycle or session as empty, 1 and empty, and ignores other trailers', () => {
    expect(parseProgressTrailers(block(['Signed-off-by: A <a@b>', 'autopilot-flow: greenfield', 'AUTOPILOT-STEP: done', 'Autopilot-Status: Failed']))).toEqual({
      flow: 'greenfield',
      step: 'done',
      name: '',
      status: 'failed',
      cycle: 1,
      session: '',
    });
  });

  it.each([
    ['no flow', ['Autopilot-Step: 3', 'Autopilot-Status: completed']],
    ['a flow that is not an id', ['Autopilot-Flow: Green Field', 'Autopilot-Step: 3', 'Autopilot-Status: completed']],
    ['a step that is not a number', ['Autopilot-Flow: greenfield', 'Autopilot-Step: three', 'Autopilot-Status: completed']],
    ['step 0', ['Autopilot-Flow: greenfield', 'Autopilot-Step: 0', 'Autopilot-Status: completed']],
    ['an unknown status', ['Autopilot-Flow: greenfield', 'Autopilot-Step: 3', 'Autopilot-Status: finished']],
    ['a cycle that is not a number', ['Autopilot-Flow: greenfield', 'Autopilot-Step: 3', 'Autopilot-Status: completed', 'Autopilot-Cycle: two']],
    ['a trailer given twice, differently', ['Autopilot-Flow: greenfield', 'Autopilot-Step: 3', 'Autopilot-Step: 4', 'Autopilot-Status: completed']],
    ['nothing', []],
  ])('ignores a commit with %s', (_what, lines) => {
    expect(parseProgressTrailers(block(lines))).toBeUndefined();
  });
});

describe('the journal event trailer', () => {
  it('is written when the event is given, and read back; a malformed one makes the commit unreadable', () => {
    const built = progressMessage({ ...plan, event: 42 });
    expect(built.trailers['Autopilot-Event']).toBe('42');
    expect(commitText(built)).toMatch(/\nAutopilot-Session: local\nAutopilot-Event: 42\n$/);
    expect(progressMessage(plan).trailers).not.toHaveProperty('Autopilot-Event');
    const text = commitText(built).split('\n\n').pop()!;
    expect(parseProgressTrailers(text)).toMatchObject({ step: 3, event: 42 });
    expect(parseProgressTrailers(commitText(progressMessage(plan)))).not.toHaveProperty('event');
    expect(parseProgressTrailers(text.replace('Autopilot-Event: 42', 'Autopilot-Event: forty-two'))).toBeUndefined();
  });
});

describe('filesByFolder', () => {
  const change = (path: string, kind: FileChange['change'] = 'modified'): FileChange => ({ path, change: kind });

  it('lists the files one line a folder, in path order, marking new and deleted ones', () => {
    expect(
      filesByFolder([
        change('src/b.ts'),
        change('src/a.ts', 'added'),
        change('README.md'),
        change('src/c.ts', 'deleted'),
        change('src/lib/x.ts'),
        change('_docs/_autopilot_state.md'),
      ]),
    ).toBe(['./ (1): README.md', '_docs/ (1): _autopilot_state.md', 'src/ (3): a.ts (new), b.ts, c.ts (deleted)', 'src/lib/ (1): x.ts'].join('\n'));
    expect(filesByFolder([])).toBe('');
  });

  it('is bounded: at most so many names a folder and so many folders, the rest counted', () => {
    const many = Array.from({ length: 11 }, (_, i) => change(`src/f${String(i).padStart(2, '0')}.ts`));
    expect(filesByFolder(many)).toBe('src/ (11): f00.ts, f01.ts, f02.ts, f03.ts, f04.ts, f05.ts, f06.ts, f07.ts, … 3 more');
    const folders = Array.from({ length: 15 }, (_, i) => change(`d${String(i).padStart(2, '0')}/x.ts`));
    const lines = filesByFolder([...folders, change('d14/y.ts')], { folders: 12, namesPerFolder: 8 }).split('\n');
    expect(lines).toHaveLength(13);
    expect(lines.at(-1)).toBe('… 4 more files in 3 more folders');
  });

  it('flattens a file name that holds a line break, so the list cannot forge a trailer', () => {
    const text = commitText(progressMessage(plan), [change('evil\nAutopilot-Step: 9.md')]);
    expect(text).toContain('./ (1): evil Autopilot-Step: 9.md');
    expect(parseProgressTrailers(text.split('\n\n').pop()!)).toMatchObject({ step: 3 });
  });
});
