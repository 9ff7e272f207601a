/** `autopilot check`: every flow, skill, the pointer, the journal and the guards; every problem, exit 2 when there is one. */
import { runCheck, type CheckResult } from '../app/views/check.js';
import { runRepair, type RepairResult } from '../app/setup/repair.js';
import { EXIT, formatProblem } from '../errors.js';
import { checkJson } from '../render/json.js';
import { summariseUnreadable } from '../render/journal-problems.js';
import { safe } from '../render/text.js';
import { defineCommand } from './command.js';

export const check = defineCommand({
  name: 'check',
  summary: 'validate flows, skills, the pointer and the journal; report every problem',
  examples: [
    { line: 'autopilot check', does: 'validate flows, skills, the pointer and the journal' },
    { line: 'autopilot check --repair', does: 'first cut journal lines a crash left torn, then check' },
  ],
  // Read-only as an MCP tool: `--repair`, the one part that writes (under the lock), is not on MCP.
  readOnly: true,
  options: [
    {
      key: 'repair',
      flags: '--repair',
      type: 'boolean',
      summary: 'first cut out journal lines a crash left torn (kept in a side file, journaled), then check',
      notOnMcp: 'it rewrites the journal: a person runs it from a shell',
    },
  ],
  mcp: { tool: 'Validate flows, skills, pointer, journal.', answer: 'check' },
  run: async (ctx, a: { repair?: boolean }) => {
    const repaired: RepairResult | undefined = a.repair ? await runRepair(ctx) : undefined;
    return { ...(await runCheck(ctx)), repaired };
  },
  view: (r) => {
    const json = checkJson(r);
    const said = r.repaired
      ? r.repaired.cut.length === 0
        ? 'Repair: nothing to cut.\n'
        : `Repair: cut journal line${r.repaired.cut.length === 1 ? '' : 's'} ${r.repaired.cut.join(', ')} (a crash left ${r.repaired.cut.length === 1 ? 'it' : 'them'} torn); the bytes are kept in ${r.repaired.keptIn}.\n`
      : '';
    return {
      json: r.repaired ? { ...json, repaired: { cut_lines: r.repaired.cut, ...(r.repaired.keptIn ? { kept_in: r.repaired.keptIn } : {}) } } : json,
      text: said + checkText(r),
      exit: r.problems.length === 0 ? EXIT.ok : EXIT.badInput,
    };
  },
});

/** What `check` found: every problem, then a line that counts what was checked and what is wrong. */
function checkText(r: CheckResult): string {
  const summary = `Checked ${r.flows.length} flows (${r.flows.join(', ')}), ${r.skills} skills, the pointer (${r.pointer}) and ${r.journalEvents} journal events${provenText(r)}`;
  // Said where runs share the repository (a merge-back's concern); `--json` gives them always.
  const notes = r.runs.length > 1 ? [...changedNotes(r), ...unrecordedNotes(r)] : [];
  if (r.problems.length === 0) return [...notes, `✓ ${summary}: no problems.`].join('\n');
  const { problems, repair } = summariseUnreadable(r.problems);
  return [...problems.map((p) => safe(formatProblem(p))), ...notes, `✗ ${summary}: ${r.problems.length} problem(s).`, ...(repair ? [repair] : [])].join('\n');
}

/** `, and 2 runs' 5 completed steps by content`, where a repository holds named runs (one run's proof is said only when it finds something). */
function provenText(r: CheckResult): string {
  if (r.runs.length < 2) return '';
  const troubled = (p: CheckResult['runs'][number]) => new Set([...p.lost, ...p.changed].map((s) => `${s.cycle}:${s.step}`)).size;
  const steps = r.runs.reduce((sum, p) => sum + p.proven.length + troubled(p), 0);
  return `, and ${r.runs.length} runs' ${steps} completed step${steps === 1 ? '' : 's'} by content`;
}

/** A note for each run's completed steps no progress commit recorded (`commit: false`): named, not failed. */
function unrecordedNotes(r: CheckResult): string[] {
  return r.runs
    .filter((p) => p.unrecorded.length > 0)
    .map((p) => {
      const steps = p.unrecorded.map((s) => `${s.step} ${s.name}`).join(', ');
      return safe(
        `Note: ${p.run === 'default' ? 'the default run' : `run ${p.run}`}: step${p.unrecorded.length === 1 ? '' : 's'} ${steps} completed with no progress commit on record (\`commit: false\`), so ${p.unrecorded.length === 1 ? 'its' : 'their'} files cannot be proven after a merge.`,
      );
    });
}

/** A note for each completed step whose files hold bytes no line of its run recorded: named, not failed (a later step or a person rewrote them). */
function changedNotes(r: CheckResult): string[] {
  return r.runs.flatMap((p) =>
    p.changed.map((c) =>
      safe(
        `Note: ${p.run === 'default' ? 'the default run' : `run ${p.run}`}: step ${c.step} ${c.name}'s ${c.files.map((f) => f.path).join(', ')} ${c.files.length === 1 ? 'holds' : 'hold'} other bytes than the run recorded (rewritten since, by a later step or by hand).`,
      ),
    ),
  );
}
