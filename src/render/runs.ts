/**
 * The runs overview in words and as JSON (`runs`, and `status` where the
 * repository holds more than one run): one line a run, the default run
 * first, each with what it waits for and the exact command that answers it.
 */
import type { RunLine } from '../app/views/run-line.js';
import type { RunsAnswer } from './answers.js';
import { lostText, oneLine, runWhere } from './text.js';

type RunJson = RunsAnswer['runs'][number];

/** One run as `runs --json` and `status --json` give it. */
export function runJson(line: RunLine): RunJson {
  return {
    run: line.run,
    flow: line.flow,
    step: line.step,
    name: line.name,
    status: line.status,
    waits_for: line.waits,
    commit: line.commit,
    lease: line.lease,
    problem: line.problem,
    lost: line.lost,
  };
}

/** One run, one line (what it waits for on the same line, with the command that answers it). */
export function runText(line: RunLine): string {
  const parts = [`${line.flow ? `${oneLine(line.flow)} · ` : ''}${runWhere(line)}`];
  if (line.waits)
    parts.push(
      `waits for ${line.waits.kind === 'failed' ? 'a person to look at the failure' : `a ${line.waits.kind} answer`}: \`${oneLine(line.waits.command)}\``,
    );
  if (line.commit) parts.push(`last commit ${line.commit.sha.slice(0, 8)}${line.commit.branch ? ` on ${oneLine(line.commit.branch)}` : ''}`);
  if (line.lease)
    parts.push('problem' in line.lease ? `lease: ${oneLine(line.lease.problem)}` : `driven by ${oneLine(line.lease.session)} on ${oneLine(line.lease.host)}`);
  parts.push(...lostText(line.lost ?? []));
  return `${line.run}  ${parts.join(' · ')}`;
}

/** Every run, one line each; no run at all says how to start one. */
export function runsText(lines: readonly RunLine[]): string {
  if (lines.length === 0) return 'No run in this repository yet: `autopilot init` starts one (`autopilot init --run NAME` a named one).';
  const width = Math.max(...lines.map((l) => l.run.length));
  return ['Runs', ...lines.map((l) => `  ${runText({ ...l, run: l.run.padEnd(width) })}`)].join('\n');
}

/** `status` with no run named where the repository holds named runs only: the overview, and how to name one. */
export function overviewText(lines: readonly RunLine[]): string {
  return `${runsText(lines)}\nThis repository holds named runs only: name one with \`--run NAME\` (or $AUTOPILOT_RUN), e.g. \`autopilot status --run ${lines[0]?.run ?? 'NAME'}\`.`;
}
