/** The acceptance criteria traced, shown to people: `status` (text and --json) and `report` (Markdown and HTML) with real files. */
import { describe, expect, it } from 'vitest';
import { autopilot, read, tempRepo, write } from '../helpers/cli.js';

describe('acceptance criteria coverage in status and report', () => {
  it('2 of 3 covered by the task index, 1 of 3 tested: AC-02 and AC-03 named as untested in all four', () => {
    const dir = tempRepo();
    expect(autopilot(dir, '--session', 'agent-1', 'next').code).toBe(0);
    // No criteria file: no line, no key.
    expect(autopilot(dir, 'status').stdout).not.toMatch(/^AC /m);
    expect(autopilot(dir, 'status', '--json').json<Record<string, unknown>>().acceptance).toBeUndefined();

    write(dir, '_docs/00_problem/acceptance_criteria.md', '# Acceptance criteria\n\n- **AC-01**: a\n- **AC-02**: b\n- **AC-03**: c\n');
    write(dir, '_docs/02_tasks/_index.md', '| T1 | covers AC-01 |\n| T2 | covers AC-03 |\n');
    write(dir, '_docs/03_implementation/test_report.md', 'AC-01 passes\n');

    const text = autopilot(dir, 'status');
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain('AC        2 of 3 covered, 1 of 3 tested; uncovered AC-02; untested AC-02, AC-03\n');
    for (const l of text.stdout.split('\n')) expect(l.length).toBeLessThanOrEqual(80);

    const json = autopilot(dir, 'status', '--json');
    expect(json.json<{ acceptance: unknown }>().acceptance).toEqual({
      file: '_docs/00_problem/acceptance_criteria.md',
      ids: ['AC-01', 'AC-02', 'AC-03'],
      covered: { file: '_docs/02_tasks/_index.md', ids: ['AC-01', 'AC-03'], missing: ['AC-02'] },
      tested: { file: '_docs/03_implementation/test_report.md', ids: ['AC-01'], missing: ['AC-02', 'AC-03'] },
    });

    expect(autopilot(dir, 'report', '--html').code).toBe(0);
    expect(read(dir, '_docs/_autopilot_report.md')).toContain(
      '## Acceptance criteria\n\n2 of 3 covered, 1 of 3 tested; uncovered AC-02; untested AC-02, AC-03 (`_docs/00_problem/acceptance_criteria.md`).\n',
    );
    expect(read(dir, '_docs/_autopilot_report.html')).toContain(
      '<h2>Acceptance criteria</h2>\n<p class="acceptance">2 of 3 covered, 1 of 3 tested; uncovered AC-02; untested AC-02, AC-03',
    );
  });
});
