/**
 * `autopilot breadcrumb`, in process: a block a reviewer can paste — every
 * piece of text from the journal escaped, printing it changes nothing,
 * `--mark` moves "since the last one", a boundary labelled by the step it
 * follows.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runBreadcrumb } from '../../../src/app/views/breadcrumb.js';
import type { Context } from '../../../src/app/transaction/context.js';
import { runStep } from '../../../src/app/step/run-step.js';
// `write` without a text writes a file a skill declares as the skill says (its template filled).
import { tempRepo as repo, write } from '../../helpers/cli.js';

const ctx = (dir: string): Context => ({ repo: { dir }, session: 'unit', now: () => new Date() });
const journalText = (dir: string) => readFileSync(join(dir, '_docs/_autopilot/journal.jsonl'), 'utf8');

const HOSTILE = '![x](https://tracker.example/p.gif) @octocat <img src=x onerror=alert(1)> </details> [link](http://evil)';

describe('a breadcrumb', () => {
  it('escapes a reason for Markdown and HTML: no image, mention, tag or link survives', async () => {
    const dir = repo();
    await runStep(ctx(dir), { event: { type: 'next' } });
    await runStep(ctx(dir), { event: { type: 'fail', reason: HOSTILE } });
    const { markdown } = await runBreadcrumb(ctx(dir));
    const line = markdown.split('\n').find((l) => l.includes('failed'))!;
    // Nothing a renderer would act on: an image, a link, a tag, a mention, a bare address.
    expect(line).not.toMatch(/(?<!\\)!\[|(?<!\\)\]\(|<img|<\/details>|@octocat|https?:\/\//);
    expect(line).toContain('&lt;img');
    expect(line).toContain('\\!\\[x\\]');
  });

  it('printed changes nothing; --mark starts the next one from here', async () => {
    const dir = repo();
    await runStep(ctx(dir), { event: { type: 'next' } });
    write(dir, '_docs/00_problem/problem.md');
    write(dir, '_docs/00_problem/acceptance_criteria.md');
    await runStep(ctx(dir), { event: { type: 'done' } });
    const before = journalText(dir);
    const printed = await runBreadcrumb(ctx(dir));
    expect(printed.marked).toBe(false);
    expect(journalText(dir)).toBe(before);
    expect((await runBreadcrumb(ctx(dir))).markdown).toContain('- step 1 Problem completed');
    expect((await runBreadcrumb(ctx(dir), { mark: true })).marked).toBe(true);
    expect((await runBreadcrumb(ctx(dir))).markdown).toContain('Since the last breadcrumb:** nothing new.');
  });

  it('labels a session boundary by the step it follows', async () => {
    const dir = repo();
    const walk: [string[], string?][] = [
      [['00_problem/problem.md', '00_problem/acceptance_criteria.md']],
      [['01_solution/solution_draft_01.md'], 'B'],
      [['01_solution/solution.md', '02_document/architecture.md']],
      [['02_tasks/_index.md']],
    ];
    for (const [files, answer] of walk) {
      await runStep(ctx(dir), { event: { type: 'next' } });
      for (const f of files) write(dir, `_docs/${f}`);
      await runStep(ctx(dir), { event: { type: 'done' } });
      if (answer) await runStep(ctx(dir), { event: { type: 'decide', option: answer } });
    }
    await runStep(ctx(dir), { event: { type: 'decide', option: 'B' } });
    const { markdown } = await runBreadcrumb(ctx(dir));
    expect(markdown).toContain('- session boundary after step 5 Decompose');
    expect(markdown).toContain('- session boundary after step 5 Decompose: B) Continue in this conversation');
    expect(markdown).not.toMatch(/after step 6/);
  });
});
