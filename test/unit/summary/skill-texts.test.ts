/** The skills say what the engine does (issue 16): the boundary's A/B choice, a task table the summary reads, the research round the engine tells apart. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { summarizeTasks } from '../../../src/summary/task-table.js';
import { ROOT } from '../../helpers/engine.js';

const skill = (name: string) => readFileSync(join(ROOT, 'skills', name, 'SKILL.md'), 'utf8');

describe('the skills at a session boundary', () => {
  it.each(['decompose', 'new-task'])('%s offers the engine’s A/B choice, asks the person, and never tells the agent to run `decide`', (name) => {
    const text = skill(name);
    expect(text).toContain('A) Start a new conversation');
    expect(text).toContain('B) Continue in this conversation');
    expect(text).toContain('ask them to');
    expect(text).not.toContain('Stop the session:');
    expect(text).toMatch(/do not run `autopilot decide` yourself/);
  });

  it('the new-task skill’s task table has the Points column the boundary summary reads: its example sums to a summary', () => {
    const text = skill('new-task');
    const table = text
      .split('\n')
      .filter((l) => /^\s*\|/.test(l))
      .map((l) => l.trim())
      .join('\n');
    const summary = summarizeTasks(table, 'new-task example');
    expect(summary).toMatchObject({ tasks: 2, batches: 2, points: 5 });
  });
});

describe('the research skill', () => {
  it('says the engine refuses `done` on a repeat round until a new draft exists, not that it cannot tell', () => {
    const text = skill('research');
    expect(text).not.toContain('cannot tell');
    expect(text).toContain('`done` is refused (exit 2)');
    expect(text).not.toMatch(/run `autopilot decide <letter>` with their/);
  });
});
