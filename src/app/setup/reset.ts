/**
 * `reset` (a person's, rule 10): starts the run over. The old pointer and
 * journal are moved aside, beside themselves, under a dated name
 * (`_autopilot_state.before-reset-20261127T023000Z.md`,
 * `journal.before-reset-….jsonl`), nothing deleted; the new journal's first
 * event (`run_started`, `source: reset`) names them; the new pointer is
 * step 1 of the flow, not started. The docs folder's documents stay: the
 * next `next` finds what they already prove done, and stops where a person
 * must answer (rule 1).
 */
import { existsSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname, extname, join, relative } from 'node:path';
import { atStep } from '../../engine/reconcile.js';
import { flowFileRef, pinnedCopy } from '../../engine/pin.js';
import { skillsPinned } from '../transaction/skill-pins.js';
import { InputError } from '../../errors.js';
import type { Flow } from '../../formats/flow/model.js';
import { loopStart } from '../../formats/flow/model.js';
import { entry } from '../../formats/journal-line.js';
import type { Position } from '../../formats/pointer/position.js';
import { readJournalHead } from '../../io/journal-head.js';
import { gatePath, type Repo } from '../../io/repo.js';
import type { Context } from '../transaction/context.js';
import { brokenFlowError } from '../transaction/invalid-flows.js';
import { readPointer } from '../transaction/load-state.js';
import { transact } from '../transaction/transact.js';
import { forgetNote } from '../git/progress-commit.js';

export interface ResetResult {
  position: Position;
  /** Where the old files went (repository-relative); absent where there was none. */
  movedAside: { pointer?: string; journal?: string };
}

/** `20261127T023000Z`: a date that sorts, in a file name any system takes. */
const stamp = (at: Date) =>
  at
    .toISOString()
    .replace(/\.\d+Z$/, 'Z')
    .replace(/[-:]/g, '');

/** `_docs/_autopilot_state.md` → `_docs/_autopilot_state.before-reset-20261127T023000Z.md`. */
export function asideName(file: string, at: Date): string {
  const ext = extname(file);
  return join(dirname(file), `${basename(file, ext)}.before-reset-${stamp(at)}${ext}`);
}

/** The flow the run was on: the pointer's, else the journal's last record; a pointer that does not parse needs `--flow`. */
function currentFlowId(repo: Repo): string | undefined {
  try {
    const pointer = readPointer(repo);
    if (pointer) return pointer.position.flow;
  } catch {
    // Not readable: the journal may say.
  }
  return readJournalHead(repo.journalFile).record?.pointer.flow;
}

export async function runReset(ctx: Context, flowId: string | undefined): Promise<ResetResult> {
  const spec = {
    flows: 'read' as const,
    person: true as const,
    prepare: ({ repo, flows }: { repo: Repo; flows: Flow[] }) => {
      const id = flowId ?? currentFlowId(repo);
      if (id === undefined)
        throw new InputError({
          message: 'reset: there is no run here to start over, or its pointer and journal do not say its flow',
          expected: 'a flow chosen: `autopilot reset --flow <id>`',
          received: existsSync(repo.pointerFile) ? 'a pointer that does not parse, and no journal record' : 'no pointer and no journal',
        });
      const flow = flows.find((f) => f.id === id);
      if (!flow)
        throw (
          brokenFlowError(flows, id) ??
          new InputError({ message: `reset --flow ${id}: no such flow`, expected: `one of ${flows.map((f) => f.id).join(', ')}`, received: id })
        );
      return flow;
    },
  };
  const { result } = await transact(ctx, spec, async ({ repo, prepared: flow }) => {
    // Under the lock: the old files go aside, then the new journal and pointer are written as one plan.
    const at = ctx.now();
    const rel = (p: string) => relative(repo.root, p);
    const movedAside: ResetResult['movedAside'] = {};
    for (const [key, file] of [
      ['pointer', repo.pointerFile],
      ['journal', repo.journalFile],
    ] as const) {
      if (!existsSync(file)) continue;
      const aside = asideName(file, at);
      gatePath(repo, file);
      gatePath(repo, aside);
      if (existsSync(aside))
        throw new InputError({ file: rel(aside), message: 'reset: a file of this name is already there', expected: 'a second later, a name of its own' });
      renameSync(file, aside);
      movedAside[key] = rel(aside);
    }
    // The index derived from the old journal describes it, not the new one; nor does the note of its last commit.
    rmSync(repo.journalIndexFile, { force: true });
    forgetNote(repo);
    const position = atStep(flow, flow.steps[0]!, 1);
    // The skills' declarations are pinned with the run, as the flow is.
    const skills = await skillsPinned(repo, flow);
    const details = {
      source: 'reset' as const,
      flow_hash: flow.hash,
      flow_file: flowFileRef(flow),
      pinned: pinnedCopy(flow),
      moved_aside: movedAside,
      ...skills,
    };
    return {
      plan: {
        entries: [entry('run_started', position, details)],
        pointer: { position, extras: { loops: loopStart(flow) !== undefined } },
        flowHash: flow.hash,
        skillsHash: skills.skills_hash,
        key: `reset:${flow.id}`,
      },
      answer: () => ({ position, movedAside }),
    };
  });
  return result;
}
