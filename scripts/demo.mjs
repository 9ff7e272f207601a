// `npm run demo`: walks a copy of _docs-example a few steps on, as an agent would,
// printing each command and what autopilot answers. The example itself is not touched.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const work = mkdtempSync(join(tmpdir(), 'autopilot-demo-'));
cpSync(join(root, '_docs-example'), work, { recursive: true });
// A git repository with a first commit, as a project is: autopilot commits each step there (skipped where git is missing).
const git = (...args) => spawnSync('git', args, { cwd: work, encoding: 'utf8' }).status === 0;
const inGit =
  git('init', '--quiet') &&
  git('config', 'user.name', 'autopilot demo') &&
  git('config', 'user.email', 'demo@example.invalid') &&
  git('config', 'commit.gpgSign', 'false') &&
  git('add', '-A') &&
  git('commit', '--quiet', '-m', 'linkcheck, part-way through the greenfield flow');

const autopilot = (...args) => {
  console.log(`\n$ autopilot ${args.join(' ')}`);
  const run = spawnSync(process.execPath, [join(root, 'bin/autopilot.js'), ...args], { cwd: work, encoding: 'utf8' });
  process.stdout.write(run.stdout + run.stderr);
  console.log(`(exit ${run.status})`);
  return run.status;
};
// What the agent writes, as the plan and decompose skills and their templates say: scripts/demo/ (the skills' test judges it).
const agentWrites = (file) => {
  console.log(`\n# the agent writes _docs/${file}`);
  mkdirSync(dirname(join(work, '_docs', file)), { recursive: true });
  cpSync(join(root, 'scripts', 'demo', file), join(work, '_docs', file));
};

try {
  console.log(`A copy of _docs-example in ${work}: linkcheck, part-way through the greenfield flow.`);
  autopilot('status');
  autopilot('next');
  agentWrites('02_document/architecture.md');
  autopilot('done');
  autopilot('next');
  for (const task of ['01_parse_and_index.md', '02_internal_links.md', '03_external_links.md']) agentWrites(`02_tasks/${task}`);
  agentWrites('02_tasks/_index.md');
  autopilot('done');
  autopilot('decide', 'A');
  autopilot('log', '--limit', '6');
  if (inGit) {
    console.log('\n$ git log --oneline');
    console.log(spawnSync('git', ['log', '--oneline'], { cwd: work, encoding: 'utf8' }).stdout.trimEnd());
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
