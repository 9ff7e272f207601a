// `npm run demo`: walks a copy of _docs-example a few steps on, as an agent would,
// printing each command and what autopilot answers. The example itself is not touched.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const work = mkdtempSync(join(tmpdir(), 'autopilot-demo-'));
cpSync(join(root, '_docs-example'), work, { recursive: true });

const autopilot = (...args) => {
  console.log(`\n$ autopilot ${args.join(' ')}`);
  const run = spawnSync(process.execPath, [join(root, 'bin/autopilot.js'), '-C', work, ...args], { encoding: 'utf8' });
  process.stdout.write(run.stdout + run.stderr);
  console.log(`(exit ${run.status})`);
  return run.status;
};
const agentWrites = (file, text) => {
  console.log(`\n# the agent writes _docs/${file}`);
  mkdirSync(dirname(join(work, '_docs', file)), { recursive: true });
  writeFileSync(join(work, '_docs', file), text);
};

// What the agent writes, as the plan and decompose skills and their templates say.
const ARCHITECTURE = `# Architecture

## Overview

linkcheck reads a folder of Markdown files in two passes: a parse pass that
indexes every file's headings and links, and a check pass that resolves each
link against the index (and, with \`--external\`, over the network).

## Components

Three components, each a module with its own tests.

### Parser

Parses one file with remark (remark-parse, remark-gfm) in a worker; returns its
links with their lines and its heading slugs (github-slugger). Serves AC-02,
AC-03 and AC-06.

### Checker

Resolves links to files and headings against the index, then external links
through a p-limit(8) queue with a 5-second timeout each. Serves AC-01, AC-02
and AC-05.

### Command line

Parses the arguments, runs both passes, prints sorted \`file:line: target
(reason)\` lines and sets the exit code. Serves AC-04 and AC-07.

## Data flow

Files go to the parser workers; their links and slugs come back into one index
in memory; the checker reads the index and writes results; the command line
sorts and prints them. Nothing is stored on disk.

## Stack and deployment

Node.js 20, TypeScript 5, unified 11 with remark-parse 11 and remark-gfm 4,
github-slugger 2, p-limit 6. Published to npm as one package with a \`bin\`.

## Review and risks

| Risk | Likelihood | Impact | What reduces it |
|---|---|---|---|
| The parse is slower than estimated on 5,000 files | medium | high | a benchmark in CI from the first batch |
| Slug rules differ from GitHub's on rare headings | low | medium | fixtures copied from real GitHub pages |

## Test strategy

Unit tests per component with vitest, end-to-end runs of the built command on
fixture folders, and a timed benchmark in CI.

| Criterion | Components | Tests |
|---|---|---|
| AC-01 | Checker | unit: a renamed file is reported with its line |
| AC-02 | Parser, Checker | unit: repeated and accented headings |
| AC-03 | Parser | unit: links in code are ignored |
| AC-04 | Command line | end to end: exit codes 0, 1 and 2 |
| AC-05 | Checker | integration: a local server counts requests |
| AC-06 | Parser | benchmark: 5,000 files under 5 seconds |
| AC-07 | Command line | end to end: two runs give the same bytes |

## Self-check

- [x] Every acceptance criterion lands on a component and on a test.
- [x] Each risk says how likely, how bad, and what reduces it.
`;

const task = (id, name, goal, tests, depends, points) => `# ${id} ${name}

## Goal

${goal}

## Touches

The \`src/\` module of the same name and its tests.

## Acceptance criteria

As the task index's coverage names them for task ${id}.

## Test strategy

${tests}

## Dependencies

${depends}

Points: ${points}
`;

const TASKS = {
  '01_parse_and_index.md': task(
    '01',
    'Parse and index',
    'Parse every file in workers and build the index of links and heading slugs.',
    'Unit tests on fixtures, and the 5,000-file benchmark.',
    'None, it can start at once.',
    3,
  ),
  '02_internal_links.md': task(
    '02',
    'Internal links',
    'Check links to files and headings against the index, and print sorted results.',
    'Unit tests per reason, end-to-end runs for the exit codes.',
    'Task 01, for the index.',
    2,
  ),
  '03_external_links.md': task(
    '03',
    'External links',
    'Check http(s) links with --external through a queue of eight, with timeouts.',
    'Integration tests against a local server.',
    'Task 01, for the links.',
    5,
  ),
};

const TASK_INDEX = `# Tasks

## Tasks

| Task | Name | Points | Batch | Depends on | Test strategy |
|---|---|---|---|---|---|
| 01 | Parse and index | 3 | 1 | — | unit on fixtures; the benchmark |
| 02 | Internal links | 2 | 2 | 01 | unit per reason; end to end for exit codes |
| 03 | External links | 5 | 2 | 01 | integration against a local server |

## Batches

| Batch | Tasks | Points | Why together |
|---|---|---|---|
| 1 | 01 | 3 | no dependencies |
| 2 | 02, 03 | 7 | both need only the index from 01 |

## Coverage

| Criterion | Tasks |
|---|---|
| AC-01 | 02 |
| AC-02 | 01, 02 |
| AC-03 | 01 |
| AC-04 | 02 |
| AC-05 | 03 |
| AC-06 | 01 |
| AC-07 | 02 |

## Self-check

- [x] Every task row has its task file beside the index.
- [x] Every dependency is a task of an earlier batch.
- [x] Every task has points from 1, 2, 3, 5, 8 and a test strategy.
- [x] Every acceptance criterion or test case id is covered by a task.
`;

try {
  console.log(`A copy of _docs-example in ${work}: linkcheck, part-way through the greenfield flow.`);
  autopilot('status');
  autopilot('next');
  agentWrites('02_document/architecture.md', ARCHITECTURE);
  autopilot('done');
  autopilot('next');
  for (const [file, text] of Object.entries(TASKS)) agentWrites(`02_tasks/${file}`, text);
  agentWrites('02_tasks/_index.md', TASK_INDEX);
  autopilot('done');
  autopilot('decide', 'A');
  autopilot('log', '--limit', '6');
} finally {
  rmSync(work, { recursive: true, force: true });
}
