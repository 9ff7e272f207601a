/**
 * The process the kill tests kill: it makes one progress commit (or one
 * work-tree snapshot) in the repository its job names, with the git wrapper
 * first on PATH, which kills this process at a chosen git call. Bundled by
 * the test with esbuild, so it starts as fast as the CLI does.
 */
import { progressCommit, snapshotWorkTree, type ProgressCommitInput } from '../../../src/git/progress-commit.js';
import { gitEnvironment, type GitHandle } from '../../../src/git/run.js';

export type JobSpec = { op: 'commit'; input: ProgressCommitInput } | { op: 'snapshot' };
/** The handle is given (what openGit gave the test for this repository, less its environment), sparing two git calls. */
export type Job = JobSpec & { handle: Omit<GitHandle, 'env'> };

async function main(): Promise<void> {
  const job = JSON.parse(process.env.AUTOPILOT_KILL_JOB ?? '') as Job;
  // The wrapper kills the process this names: this one, whatever started the git it wraps.
  process.env.AUTOPILOT_KILL_PARENT = String(process.pid);
  const handle: GitHandle = { ...job.handle, env: gitEnvironment() };
  const result = job.op === 'commit' ? await progressCommit(handle, job.input) : await snapshotWorkTree(handle);
  process.stdout.write(JSON.stringify({ result: result ?? null }));
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
