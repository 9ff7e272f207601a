/**
 * No run named where the repository holds named runs only (CONTRACT rule 12,
 * docs/runs.md "Seeing every run"): a command that acts on one run refuses
 * (exit 2, nothing written), listing the runs and the command for each. With
 * a default run, no run named is the default run, exactly as before; the
 * check then costs the look for its pointer, and `_runs/` is read only when
 * the default run is missing. Every front end runs a command through here
 * (`commands/command.ts` `performCommand`).
 */
import { InputError } from '../../errors.js';
import { openRepo, type Repo } from '../../io/repo.js';
import { holdsRun, listRuns } from '../../io/run.js';
import type { Context } from './context.js';

/** The named runs, where no run is named and the repository has named runs only; undefined otherwise (the command acts as it always has). */
export function namedRunsOnly(ctx: Pick<Context, 'repo'>): string[] | undefined {
  if (ctx.repo.run !== undefined) return undefined;
  let repo: Repo;
  try {
    repo = openRepo(ctx.repo);
  } catch {
    return undefined; // the command says what is wrong with the folder
  }
  return namedRunsOnlyIn(repo, false);
}

/** The same rule for a repository already opened (`named`: a run was named). */
export function namedRunsOnlyIn(repo: Repo, named: boolean): string[] | undefined {
  if (named || holdsRun(repo.repoDocs)) return undefined;
  const runs = listRuns(repo.repoDocs);
  return runs.length > 0 ? runs : undefined;
}

/** Exit 2 when `command` needs a run named here and none is: the runs, and the line that runs `command` on each. */
export function requireRunNamed(ctx: Pick<Context, 'repo'>, command: string): void {
  const runs = namedRunsOnly(ctx);
  if (!runs) return;
  const lines = runs.map((run) => `autopilot ${command} --run ${run}`);
  throw new InputError(
    {
      message: `no run named: this repository holds named runs only (${runs.join(', ')}), and \`${command}\` acts on one of them`,
      expected: `the run to act on: \`--run NAME\` or $AUTOPILOT_RUN (over MCP, the tool's \`run\`), e.g. \`${lines[0]}\``,
      received: 'no --run and no $AUTOPILOT_RUN',
    },
    `Name the run: ${lines.map((l) => `\`${l}\``).join(', ')}; \`autopilot runs\` shows where each stands.`,
  );
}
