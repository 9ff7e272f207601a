/**
 * `npm run bench`: how fast and how small the CLI's answers are, each figure a
 * ratio to a baseline measured in the same run (alternating runs, medians),
 * or a plain figure where nothing compares. Prints a table, writes
 * bench/results.json, exits 0 even when a target is missed, 1 when a command
 * fails. `node dist/bench.js --quick` runs fewer rounds; `node dist/bench.js
 * start-up memory` runs only those scenarios. See docs/performance.md.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { commitProject, type CommitFixtures } from './commit.js';
import { addGeneratedDocs } from './fixtures.js';
import { prependHistory, walkToStep9 } from './history.js';
import { VERIFY_TESTS, verifyProject } from './verify.js';
import {
  atMost,
  Bench,
  BenchFailure,
  figureOf,
  findPackageRoot,
  Interrupted,
  machine,
  runNode,
  scenario,
  stopOnSignals,
  table,
  timed,
  under,
  type Measure,
  type Probe,
  type RunnableScenario,
  type Row,
  type Target,
} from './harness.js';

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const only = args.filter((a) => !a.startsWith('--'));

/** Run counts: sized so the whole run stays well under 3 minutes on 2 cores. */
const RUNS = quick
  ? { startup: { pairs: 5, warmup: 1 }, large: { pairs: 3, warmup: 1 }, largeFiles: 10_000, memory: { pairs: 3, warmup: 1 }, events: 100_000 }
  : { startup: { pairs: 25, warmup: 3 }, large: { pairs: 15, warmup: 2 }, largeFiles: 100_000, memory: { pairs: 9, warmup: 1 }, events: 1_000_000 };

/** One command's start-up against an empty Node process, in alternating pairs. */
const againstFloor = (m: Measure, dir: string, args: string[], target?: Target, expect?: readonly number[]) =>
  m.compare({
    subject: timed(m.bench.autopilot(dir, args, expect ? { expect } : {})),
    baseline: timed(m.bench.floor()),
    unit: 'ms',
    ...RUNS.startup,
    ...(target ? { target } : {}),
  });

const scenarios: RunnableScenario[] = [
  scenario({
    id: 'start-up',
    title: 'Start-up: `status` and `next` on a copy of _docs-example after a `next`, against an empty Node process',
    target: 'at most 1.2× `node -e 0` for `status`, 1.25× for `next` (a step in progress)',
    // A session's `status` comes after its first `next`, which records the journal chain's verdict (docs/state-and-journal.md);
    // two, so a verdict written in the clock tick of the first one's journal write is written again.
    setup: (bench, folder) => {
      const dir = bench.copyExample(`${folder}/repo`);
      for (let i = 0; i < 2; i++) runNode(bench.autopilot(dir, ['next', '--json']));
      return { dir };
    },
    // Later `next` calls re-read and resume: the steady state.
    measure: async (m, { dir }) => [
      await againstFloor(m, dir, ['status', '--json'], atMost(1.2)),
      await againstFloor(m, dir, ['next', '--json'], atMost(1.25)),
      // For information: loading the bundle and printing the version, no repository read; what is left of the gap is the work.
      await againstFloor(m, dir, ['--version'], undefined, [0]),
    ],
  }),

  scenario({
    id: 'fresh-init',
    title: '`status` in a git repository `init` set up, before the first `next`, against an empty Node process',
    target: 'at most 1.2× `node -e 0` (no git process: there is no earlier run to recall; no YAML parser for the settings init wrote)',
    setup: (bench, folder) => {
      const dir = bench.folder(`${folder}/repo`);
      spawnSync('git', ['init', '-q', dir]);
      runNode(bench.autopilot(dir, ['init']));
      return { dir };
    },
    measure: async (m, { dir }) => [await againstFloor(m, dir, ['status', '--json'], atMost(1.2))],
  }),

  scenario({
    id: 'commit',
    title:
      'Progress commits: `done` (step 1 of greenfield, its files written) and the `next` that starts step 2, on a fresh copy each time, with commits on against `commit: false` (`verify: none` in both)',
    target: 'at most 1.3× for `done` with its commit, 1.15× for the `next` that starts a step',
    setup: (bench, folder) => {
      const on = commitProject(bench.cli, bench.folder(`${folder}/on`), true);
      const off = commitProject(bench.cli, bench.folder(`${folder}/off`), false);
      // The subject must commit, or the ratio would time something else.
      const probe = join(bench.folder(folder), 'probe');
      cpSync(on.readyForDone, probe, { recursive: true });
      runNode(bench.autopilot(probe, ['done'], { expect: [0] }));
      const log = spawnSync('git', ['log', '--format=%s'], { cwd: probe, encoding: 'utf8' }).stdout;
      if (!/^autopilot: greenfield 1\/10 Problem completed$/m.test(log)) throw new BenchFailure(`commit: done made no progress commit\n${log}`);
      return { on, off, copies: bench.folder(`${folder}/copies`) };
    },
    measure: async (m, { on, off, copies }) => {
      let n = 0;
      // The copy is not timed: each sample starts from the same moment.
      const onACopy = (label: string, from: (f: CommitFixtures) => string, fixture: CommitFixtures, args: string[]): Probe => ({
        label,
        sample: () => {
          const dir = join(copies, String(n++));
          cpSync(from(fixture), dir, { recursive: true });
          const { ms } = runNode(m.bench.autopilot(dir, args, { expect: [0] }));
          rmSync(dir, { recursive: true, force: true });
          return ms;
        },
      });
      const done = (f: CommitFixtures) => f.readyForDone;
      const next = (f: CommitFixtures) => f.readyForNext;
      return [
        await m.compare({
          subject: onACopy('done --json, with its commit', done, on, ['done', '--json']),
          baseline: onACopy('done --json, commit: false', done, off, ['done', '--json']),
          unit: 'ms',
          ...RUNS.startup,
          target: atMost(1.3),
        }),
        await m.compare({
          subject: onACopy('next --json starting a step, commits on', next, on, ['next', '--json']),
          baseline: onACopy('next --json starting a step, commit: false', next, off, ['next', '--json']),
          unit: 'ms',
          ...RUNS.startup,
          target: atMost(1.15),
        }),
      ];
    },
  }),

  scenario({
    id: 'package',
    title: 'The package: `npm pack` of the built CLI, installed from its tarball into an empty project',
    target: 'at most 300 KB packed; 1 package installed',
    setup: (bench, folder) => {
      const packs = bench.folder(`${folder}/packs`);
      const project = bench.folder(`${folder}/project`);
      const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
      const packed = spawnSync(npm, ['pack', '--ignore-scripts', '--json', '--pack-destination', packs], { cwd: bench.root, encoding: 'utf8' });
      if (packed.status !== 0) throw new BenchFailure(`npm pack failed: ${packed.stderr}`);
      const [info] = JSON.parse(packed.stdout) as { filename: string; size: number; unpackedSize: number }[];
      writeFileSync(join(project, 'package.json'), '{ "name": "bench-project", "private": true }\n');
      const installed = spawnSync(npm, ['install', '--no-audit', '--no-fund', '--ignore-scripts', join(packs, info!.filename)], {
        cwd: project,
        encoding: 'utf8',
      });
      if (installed.status !== 0) throw new BenchFailure(`npm install of the tarball failed: ${installed.stderr}`);
      const lock = JSON.parse(readFileSync(join(project, 'package-lock.json'), 'utf8')) as { packages: Record<string, unknown> };
      return { packed: info!.size / 1024, unpacked: info!.unpackedSize / 1024, packages: Object.keys(lock.packages).filter((p) => p !== '').length };
    },
    measure: async (m, { packed, unpacked, packages }) => [
      // KB here are KiB (size / 1024): under 331 is the 330 KiB test/e2e/pack.test.ts allows.
      m.figure({ subject: 'tarball, packed', unit: 'KB', value: Math.round(packed), target: under(331, 'KB') }),
      m.figure({ subject: 'tarball, unpacked', unit: 'KB', value: Math.round(unpacked) }),
      m.figure({ subject: 'packages installed', unit: 'packages', value: packages, target: under(2, 'packages') }),
    ],
  }),

  scenario({
    id: 'one-folder-glob',
    title: `A glob that names one folder: _docs-example plus ${RUNS.largeFiles.toLocaleString('en')} files in \`_docs/01_solution/\`, the folder \`solution_draft_*.md\` names`,
    target: 'at most 1.2× the same command on the plain copy',
    setup: (bench, folder) => {
      const plain = bench.copyExample(`${folder}/plain`);
      const large = bench.copyExample(`${folder}/large`);
      const dir = join(large, '_docs', '01_solution');
      for (let i = 0; i < RUNS.largeFiles; i++) writeFileSync(join(dir, `note_${i}.md`), 'a note\n');
      spawnSync('sync', { stdio: 'ignore' });
      return { plain, large };
    },
    measure: async (m, { plain, large }) => [
      await m.compare({
        subject: { ...timed(m.bench.autopilot(large, ['status', '--json'])), label: `status --json (+${RUNS.largeFiles / 1000}k files in one folder)` },
        baseline: timed(m.bench.autopilot(plain, ['status', '--json'])),
        unit: 'ms',
        ...RUNS.large,
        target: atMost(1.2),
      }),
    ],
  }),

  scenario({
    id: 'mcp',
    title: 'MCP: a `status` tool call to one long-lived `autopilot mcp` (SDK client, stdio), against `status --json` as a process',
    target: 'for information: what a long-lived server saves per call',
    setup: async (bench, folder) => {
      const dir = bench.copyExample(`${folder}/repo`);
      // Loaded here only: the other scenarios never pay for the SDK.
      const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
      const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
      const env = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined));
      const client = new Client({ name: 'autopilot-bench', version: '1' });
      await client.connect(
        new StdioClientTransport({ command: process.execPath, args: [bench.cli, '-C', dir, 'mcp'], env: { ...env, AUTOPILOT_SESSION: 'bench' } }),
      );
      return { dir, client };
    },
    // setup is synchronous in the harness: the connection is awaited here, before the timed pairs.
    measure: async (m, connecting) => {
      const { dir, client } = await connecting;
      const call: Probe = {
        label: 'MCP tool call: status',
        sample: async () => {
          const start = process.hrtime.bigint();
          const r = await client.callTool({ name: 'status', arguments: {} });
          if (r.isError) throw new BenchFailure(`mcp status: ${JSON.stringify(r.content)}`);
          return Number(process.hrtime.bigint() - start) / 1e6;
        },
      };
      try {
        return [await m.compare({ subject: call, baseline: timed(m.bench.autopilot(dir, ['status', '--json'])), unit: 'ms', ...RUNS.startup })];
      } finally {
        await client.close();
      }
    },
  }),

  scenario({
    id: 'large-docs',
    title: `Large docs: _docs-example plus ${RUNS.largeFiles.toLocaleString('en')} small files in nested folders under _docs/`,
    target: 'at most 1.5× the same command on the plain copy',
    setup: (bench, folder) => {
      const plain = bench.copyExample(`${folder}/plain`);
      const large = bench.copyExample(`${folder}/large`);
      const started = Date.now();
      const files = addGeneratedDocs(join(large, '_docs'), RUNS.largeFiles);
      bench.log(`  wrote ${files.toLocaleString('en')} files in ${((Date.now() - started) / 1000).toFixed(1)} s`);
      // Let the kernel write them back first, or the flush competes with the timed runs.
      spawnSync('sync', { stdio: 'ignore' });
      // The extra files name no step's artifacts: both copies must give the same answer, or the comparison means nothing.
      const [a, b] = [plain, large].map((dir) => runNode(bench.autopilot(dir, ['status', '--json'])).stdout.toString());
      if (a !== b) throw new BenchFailure(`large-docs: the generated files changed the answer\nplain: ${a}large: ${b}`);
      return { plain, large };
    },
    measure: async (m, { plain, large }) => [
      await m.compare({
        subject: { ...timed(m.bench.autopilot(large, ['status', '--json'])), label: `status --json (+${RUNS.largeFiles / 1000}k files)` },
        baseline: timed(m.bench.autopilot(plain, ['status', '--json'])),
        unit: 'ms',
        ...RUNS.large,
        target: atMost(1.5),
      }),
    ],
  }),

  scenario({
    id: 'output-size',
    title: 'Output size: bytes on stdout, each command once on a fresh copy (`next`: its first call)',
    target: '`next` under 1024 B, `status` under 2048 B (text); --json for information',
    setup: (bench, folder) => ({ fresh: (name: string) => bench.copyExample(`${folder}/${name}`) }),
    measure: async (m, { fresh }) =>
      (
        [
          [['next'], under(1024, 'bytes')],
          [['status'], under(2048, 'bytes')],
          [['next', '--json'], undefined],
          [['status', '--json'], undefined],
        ] as const
      ).map(([command, target]) => {
        const { stdout } = runNode(m.bench.autopilot(fresh(command.join('-')), [...command]));
        return m.figure({ subject: command.join(' '), unit: 'bytes', value: stdout.length, target, extra: { output: stdout.toString('utf8') } });
      }),
  }),

  scenario({
    id: 'memory',
    title: 'Memory: peak resident set size (maxRSS) of `status --json` and `next --json` on _docs-example',
    target: 'under 80 MB; the ratio to `node -e 0` for information',
    setup: (bench, folder) => ({ dir: bench.copyExample(`${folder}/repo`) }),
    measure: async (m, { dir }) => [
      await m.compare({
        subject: m.bench.peakMemory(m.bench.autopilot(dir, ['status', '--json'])),
        baseline: m.bench.peakMemory(m.bench.floor()),
        unit: 'MB',
        ...RUNS.memory,
        target: under(80, 'MB'),
      }),
      await m.compare({
        subject: m.bench.peakMemory(m.bench.autopilot(dir, ['next', '--json'])),
        baseline: m.bench.peakMemory(m.bench.floor()),
        unit: 'MB',
        ...RUNS.memory,
        target: under(80, 'MB'),
      }),
    ],
  }),

  scenario({
    id: 'verify',
    title: `The project's tests observed: \`autopilot exec\` (\`verify: node --test\`, ${VERIFY_TESTS} tests) and the \`done\` that judges the report against that run and commits the step, on a fresh copy each time, against \`node --test\` alone`,
    target: 'for information: what observing the tests costs on top of running them',
    setup: (bench, folder) => {
      const prepared = join(bench.folder(folder), 'prepared');
      verifyProject(bench.cli, prepared);
      // The report must be what a run gives, or the ratio would time a refusal.
      const probe = join(bench.folder(folder), 'probe');
      cpSync(prepared, probe, { recursive: true });
      runNode(bench.autopilot(probe, ['exec'], { expect: [0] }));
      runNode(bench.autopilot(probe, ['done'], { expect: [0] }));
      return { prepared, copies: bench.folder(`${folder}/copies`) };
    },
    measure: async (m, { prepared, copies }) => {
      let n = 0;
      const observed: Probe = {
        label: 'exec + done (the run observed, the report judged)',
        sample: () => {
          // The copy is not timed: each sample starts at the step, its report written, no run yet.
          const dir = join(copies, String(n++));
          cpSync(prepared, dir, { recursive: true });
          const ms = runNode(m.bench.autopilot(dir, ['exec'], { expect: [0] })).ms + runNode(m.bench.autopilot(dir, ['done'], { expect: [0] })).ms;
          rmSync(dir, { recursive: true, force: true });
          return ms;
        },
      };
      const alone = timed({ label: 'node --test', args: ['--test'], cwd: prepared });
      return [await m.compare({ subject: observed, baseline: alone, unit: 'ms', ...RUNS.large })];
    },
  }),

  scenario({
    id: 'long-history',
    title: `A fresh clone of a long history (no cache): greenfield at step 9 after a repeated round and a skipped step, with ${RUNS.events.toLocaleString('en')} older journal events in front`,
    target: 'time and peak memory at most 1.2× the same repository with a fresh journal',
    setup: (bench, folder) => {
      const fresh = join(bench.folder(folder), 'fresh');
      mkdirSync(fresh);
      walkToStep9(bench.cli, fresh);
      const long = join(bench.folder(folder), 'long');
      cpSync(fresh, long, { recursive: true });
      const started = Date.now();
      prependHistory(long, RUNS.events);
      bench.log(`  wrote ${RUNS.events.toLocaleString('en')} events in ${((Date.now() - started) / 1000).toFixed(1)} s`);
      // A fresh clone: the cache folder is git-ignored, so it is not there.
      for (const dir of [fresh, long]) rmSync(join(dir, '_docs/_autopilot/cache'), { recursive: true, force: true });
      spawnSync('sync', { stdio: 'ignore' });
      const answer = (dir: string) => runNode(bench.autopilot(dir, ['next', '--json'])).stdout.toString();
      const [a, b] = [answer(fresh), answer(long)];
      if (a !== b) throw new BenchFailure(`long-history: the older events changed the answer\nfresh: ${a}long: ${b}`);
      if (existsSync(join(long, '_docs/_autopilot/cache/journal-index.json')))
        throw new BenchFailure("long-history: the journal's end did not answer; the index was derived and cached");
      return { fresh, long };
    },
    measure: async (m, { fresh, long }) => {
      const rows = [];
      const commands = [
        ['status', '--json'],
        ['next', '--json'],
        ['hook', 'session-start'],
        ['log', '-n', '20'],
      ];
      for (const args of commands) {
        rows.push(
          await m.compare({
            subject: { ...timed(m.bench.autopilot(long, args)), label: `${args.join(' ')} (${RUNS.events / 1e6}M events)` },
            baseline: timed(m.bench.autopilot(fresh, args)),
            unit: 'ms',
            ...RUNS.large,
            target: atMost(1.2),
          }),
        );
      }
      for (const args of commands.filter((c) => c[0] !== 'next')) {
        rows.push(
          await m.compare({
            subject: { ...m.bench.peakMemory(m.bench.autopilot(long, args)), label: `peak memory: ${args.join(' ')} (${RUNS.events / 1e6}M events)` },
            baseline: m.bench.peakMemory(m.bench.autopilot(fresh, args)),
            unit: 'MB',
            ...RUNS.memory,
            target: atMost(1.2),
          }),
        );
      }
      return rows;
    },
  }),
];

async function main(): Promise<number> {
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const root = findPackageRoot();
  const unknown = only.filter((id) => !scenarios.some((s) => s.id === id));
  if (unknown.length > 0) throw new BenchFailure(`no scenario ${unknown.join(', ')}; the scenarios are ${scenarios.map((s) => s.id).join(', ')}`);
  const chosen = scenarios.filter((s) => only.length === 0 || only.includes(s.id));

  const bench = new Bench(root, log);
  const started = new Date();
  const rows: Row[] = [];
  const ran: { id: string; title: string; target: string; setup_seconds: number; measure_seconds: number }[] = [];
  try {
    for (const s of chosen) {
      log(`${s.id}: ${s.title}`);
      const result = await s.run(bench);
      rows.push(...result.rows);
      ran.push({ id: s.id, title: s.title, target: s.target, setup_seconds: result.setupSeconds, measure_seconds: result.measureSeconds });
    }
  } finally {
    bench.remove();
  }

  const host = machine();
  const seconds = (Date.now() - started.getTime()) / 1000;
  console.log(table(rows));
  console.log('');
  console.log(`Machine: ${host.cpu}, ${host.cpus} CPUs, ${host.memoryGiB} GiB, Node ${host.node}, ${host.platform}`);
  console.log(`Date:    ${started.toISOString()} (${seconds.toFixed(0)} s${quick ? ', --quick' : ''})`);
  const missed = rows.filter((r) => r.verdict === 'MISS');
  console.log(
    missed.length === 0
      ? 'Every target met.'
      : `Missed: ${missed.map((r) => `${r.scenario} ${r.subject}: ${figureOf(r)}, target ${r.target?.text ?? ''}`).join('; ')}`,
  );

  const file = join(root, 'bench', 'results.json');
  const tmp = `${file}.tmp-${process.pid}`; // .gitignore: bench/results.json.tmp*
  writeFileSync(tmp, `${JSON.stringify({ date: started.toISOString(), seconds, quick, machine: host, scenarios: ran, rows }, null, 2)}\n`);
  renameSync(tmp, file);
  log(`Wrote ${file}`);
  return 0;
}

stopOnSignals();
main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    if (error instanceof BenchFailure) process.stderr.write(`bench: ${error.message}\n`);
    else process.stderr.write(`bench: internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = error instanceof Interrupted ? 130 : 1;
  },
);
