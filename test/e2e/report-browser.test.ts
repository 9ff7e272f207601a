/**
 * `autopilot report --html` in a real browser: Debian's chromium driven by
 * playwright-core, no network. The page of a walked copy of the example must
 * draw a node per step in its status's colour, run no script a session name
 * smuggled in, and the Markdown's Mermaid text must render with Mermaid
 * itself (loaded from node_modules). The screenshot is kept in test-artifacts/.
 */
import { withOptions } from '../helpers/line.js';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { autopilot, exampleCopy, read, write } from '../helpers/cli.js';
import { ROOT } from '../helpers/engine.js';

const CHROMIUM = process.env.AUTOPILOT_CHROMIUM ?? '/usr/bin/chromium';
/** CI installs chromium and sets AUTOPILOT_REQUIRE_BROWSER=1: there, a missing browser is a failure, not a skip. */
const required = process.env.AUTOPILOT_REQUIRE_BROWSER === '1';
const missing = !existsSync(CHROMIUM);
const skip = process.env.AUTOPILOT_SKIP_BROWSER === '1' || (missing && !required);
const ARTIFACTS = join(ROOT, 'test-artifacts');
const EVIL = '<script>window.__pwned=1</script>"x';

/** The browser's globals used here (the project's type check has no DOM library). */
type Styles = { getComputedStyle: (e: unknown) => { fill: string } };

let browser: Browser;

beforeAll(async () => {
  if (skip) return;
  if (missing) throw new Error(`the report's browser test needs chromium at ${CHROMIUM} (Debian: apt-get install -y chromium; or set AUTOPILOT_CHROMIUM).`);
  browser = await chromium.launch({ executablePath: CHROMIUM });
}, 60_000);

// Said in the run's output, so a summary with skipped tests says why.
if (skip)
  console.log(`the report's browser test is skipped: ${missing ? `no chromium at ${CHROMIUM} (apt-get install -y chromium)` : 'AUTOPILOT_SKIP_BROWSER=1'}`);

afterAll(async () => {
  await browser?.close();
});

/**
 * The example walked on: step 3 done, 4 passed over by its condition, 5 failed
 * three times. A session name cannot hold markup, but a journal is a file
 * anyone can write: the walker's name is then replaced by a hostile one there.
 */
const ARCHITECTURE = [
  '# Architecture',
  '\n## Overview\n\nA command-line tool reads the clinic calendar once an hour and sends each patient one reminder by text.',
  '\n## Components\n\nThe scheduler wakes every 60 minutes; the sender talks to the SMS gateway; a SQLite file keeps what was sent.',
  '\n## Data flow\n\nCalendar rows become reminders, reminders become gateway calls, and every answer from the gateway is stored.',
  '\n## Stack and deployment\n\nNode 20 on one small Debian host, started by systemd, with nightly backups of the database file.',
  '\n## Review and risks\n\nGateway outages are likely but short: the sender retries for 6 hours, then tells the front desk.',
  '\n## Test strategy\n\nUnit and end to end tests cover AC-01, AC-02, AC-03, AC-04, AC-05, AC-06 and AC-07.',
  '\n## Self-check\n\n- [x] Every acceptance criterion lands on a component and on a test.\n- [x] Each risk says how likely, how bad, and what reduces it.\n',
].join('\n');

function walkedExample(): string {
  const dir = exampleCopy();
  const run = (...args: string[]) => autopilot(dir, ...withOptions(args, ['--session', 'walker']));
  expect(run('next').code).toBe(0);
  // The Plan skill's judges read the file: its sections filled, every criterion of the example named, the Self-check ticked.
  write(dir, '_docs/02_document/architecture.md', ARCHITECTURE);
  expect(run('done').code).toBe(0);
  for (let i = 0; i < 3; i++) {
    expect(run('next').code).toBe(0);
    run('fail', '--reason', `attempt ${i + 1} <b>broke</b>`);
  }
  const journal = join(dir, '_docs/_autopilot/journal.jsonl');
  writeFileSync(journal, readFileSync(journal, 'utf8').replaceAll('"session":"walker"', `"session":${JSON.stringify(EVIL)}`));
  const r = run('report', '--html', '--json');
  expect(r.code, r.stderr + r.stdout).toBe(0);
  expect(r.json()).toEqual({ file: '_docs/_autopilot_report.md', html: '_docs/_autopilot_report.html' });
  return dir;
}

describe.skipIf(skip)('the HTML report in chromium', () => {
  it('draws every step in its status colour, runs no smuggled script, and is kept as a screenshot', async () => {
    const dir = walkedExample();
    const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
    const requests: string[] = [];
    page.on('request', (r) => requests.push(r.url()));
    await page.goto(pathToFileURL(join(dir, '_docs/_autopilot_report.html')).href);

    const nodes = await page.$$eval('svg.flow g.step', (gs) =>
      gs.map((g) => ({
        status: g.getAttribute('data-status'),
        fill: (globalThis as unknown as Styles).getComputedStyle(g.querySelector('rect')!).fill,
        box: g.getBoundingClientRect().height,
      })),
    );
    expect(nodes).toHaveLength(10);
    expect(nodes.map((n) => n.status)).toEqual(['done', 'done', 'done', 'skipped', 'failed', ...Array(5).fill('not_started')]);
    expect(nodes.every((n) => n.box > 20)).toBe(true);
    const fills = (s: string) => new Set(nodes.filter((n) => n.status === s).map((n) => n.fill));
    expect(fills('done')).toEqual(new Set(['rgb(46, 125, 50)']));
    expect(fills('failed')).toEqual(new Set(['rgb(198, 40, 40)']));
    expect(fills('skipped')).toEqual(new Set(['rgb(176, 190, 197)']));

    const rows = await page.$$eval('table.steps tbody tr', (trs) => trs.map((tr) => tr.textContent ?? ''));
    expect(rows).toHaveLength(10);
    expect(rows[4]).toContain('3');
    expect(rows[4]).toContain(EVIL);
    expect(await page.evaluate(() => (globalThis as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(await page.$$('script')).toHaveLength(0);
    expect(requests.every((u) => u.startsWith('file:'))).toBe(true);

    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'report.png'), fullPage: true });
    await page.close();
  }, 60_000);

  it("renders the Markdown's Mermaid diagram with Mermaid itself", async () => {
    const dir = walkedExample();
    const md = read(dir, '_docs/_autopilot_report.md');
    const text = /```mermaid\n([\s\S]*?)```/.exec(md)![1]!;
    const page = await browser.newPage();
    await page.setContent('<!doctype html><html><body></body></html>');
    await page.addScriptTag({ content: readFileSync(join(ROOT, 'node_modules/mermaid/dist/mermaid.min.js'), 'utf8') });
    const svg = await page.evaluate(async (t) => {
      const m = (globalThis as unknown as { mermaid: { initialize: (c: object) => void; render: (id: string, t: string) => Promise<{ svg: string }> } })
        .mermaid;
      m.initialize({ startOnLoad: false, securityLevel: 'strict' });
      return (await m.render('report', t)).svg;
    }, text);
    expect(svg.match(/class="node [^"]*"/g)?.length).toBeGreaterThanOrEqual(10);
    expect(svg).toContain('failed');
    expect(svg).not.toContain('<script');
    await page.close();
  }, 60_000);
});
