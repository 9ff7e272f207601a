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

try {
  console.log(`A copy of _docs-example in ${work}: linkcheck, part-way through the greenfield flow.`);
  autopilot('status');
  autopilot('next');
  agentWrites('02_document/architecture.md', '# Architecture\n\nParser workers, a link index, two passes.\n');
  autopilot('done');
  autopilot('next');
  agentWrites(
    '02_tasks/_index.md',
    '# Tasks\n\n| Task | Name | Points | Batch |\n|---|---|---|---|\n| 01 | Parse and index | 3 | 1 |\n| 02 | Internal links | 2 | 2 |\n| 03 | External links | 5 | 2 |\n',
  );
  autopilot('done');
  autopilot('decide', 'A');
  autopilot('log', '--limit', '6');
} finally {
  rmSync(work, { recursive: true, force: true });
}
