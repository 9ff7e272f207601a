/** `autopilot report` from the command line: the Markdown file, the open decision, `--json`, hostile names kept inert. */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { autopilot, read, tempRepo, write } from '../helpers/cli.js';

/** A fresh greenfield run walked to the decision after Research. */
function atDecision(session: string): string {
  const dir = tempRepo();
  for (let step = 1; step <= 2; step++) {
    const next = autopilot(dir, '--session', session, 'next', '--json');
    expect(next.code, next.stdout).toBe(0);
    for (const pattern of next.json<{ done_when: string[] }>().done_when) write(dir, pattern.replace('*', 'notes'));
    autopilot(dir, '--session', session, 'done');
  }
  return dir;
}

describe('autopilot report', () => {
  it('writes the Markdown report with the steps, the open decision and the last actions', () => {
    const dir = atDecision('agent-1');
    const r = autopilot(dir, 'report', '--json');
    expect(r.code, r.stderr).toBe(0);
    expect(r.json()).toEqual({ file: '_docs/_autopilot_report.md' });
    const md = read(dir, '_docs/_autopilot_report.md');
    expect(md).toContain('```mermaid\nflowchart TD\n');
    expect(md).toMatch(/\| 1 \| Problem \| done \| \d{4}-\d\d-\d\d [\d:]+Z \| \d{4}-\d\d-\d\d [\d:]+Z \| 1 \| agent-1 \|/);
    expect(md).toMatch(/\| 2 \| Research \| ▶ done \|/);
    expect(md).toContain('## Open decisions\n\n**');
    expect(md).toMatch(/\*\*decision\\_required\*\* · step 2 Research · agent-1/);
    expect(autopilot(dir, 'report').stdout).toBe('✓ Wrote _docs/_autopilot_report.md\n');
  });

  it('keeps a hostile session name inert in both files', () => {
    const evil = '<img src=x onerror=alert(1)>|`x`';
    // No command takes such a name (exit 2); a journal written by hand can hold one.
    expect(autopilot(tempRepo(), '--session', evil, 'next').code).toBe(2);
    const dir = atDecision('agent-1');
    const file = join(dir, '_docs/_autopilot/journal.jsonl');
    writeFileSync(file, readFileSync(file, 'utf8').replaceAll('"session":"agent-1"', `"session":${JSON.stringify(evil)}`));
    expect(autopilot(dir, 'report', '--html').code).toBe(0);
    expect(read(dir, '_docs/_autopilot_report.md')).not.toContain('<img');
    const html = read(dir, '_docs/_autopilot_report.html');
    expect(html).not.toContain('<img');
    expect(html).toContain('&#60;img src=x onerror=alert(1)&#62;');
  });
});
