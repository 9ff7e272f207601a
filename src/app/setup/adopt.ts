/**
 * `autopilot adopt` (a person's command, rule 10): adopts what is held for a
 * person (docs/state-and-journal.md, "Hand edits"):
 * - a hand edit of the pointer past a gate a person owns: the run goes on
 *   from the pointer as edited, journaled `edit_adopted` (and, when it
 *   changed the flow, `run_started` pinning that flow); the folder judges it
 *   at the next command, as it judges any pointer (rule 1);
 * - an edit of the pinned acceptance criteria: `edit_adopted` with the
 *   criteria as the file holds them now, pinned anew;
 * - a journal that lost events (rule 7, `engine/journal-cut.ts`): the run goes
 *   on from the position shown, `edit_adopted` (`what: journal`) numbered past
 *   every event the signs name, so the journal reaches them again; a journal
 *   that kept no event is pinned again (`run_started`), as any run begun is.
 * It acts on the run, not as a driver (rule 6): no lease is judged, taken or
 * released, and its entries say `actor: person`. With nothing held it says so
 * (exit 2) and writes nothing.
 */
import { changeList } from '../../engine/criteria.js';
import { flowFileRef, pinnedCopy } from '../../engine/pin.js';
import { InputError } from '../../errors.js';
import { entry, fromPointerRecord, type JournalEntry } from '../../formats/journal-line.js';
import type { Position } from '../../formats/pointer/position.js';
import { describeTarget } from '../../engine/follow-through.js';
import type { Context } from '../transaction/context.js';
import type { Loaded } from '../transaction/load-state.js';
import { pointerAt, transact } from '../transaction/transact.js';

export interface AdoptResult {
  /** What was adopted, a line each: `the pointer: step 2 → 3`, `the criteria: AC-02 dropped`. */
  adopted: { what: 'pointer' | 'criteria' | 'journal'; changes: string[] }[];
  /** Where the run goes on from. */
  position: Position;
}

export async function runAdopt(ctx: Context): Promise<AdoptResult> {
  const { result } = await transact(ctx, { flows: 'cache', person: true, adoptsCut: true }, async (tx) => {
    const loaded = await tx.state();
    const held = loaded.held && !loaded.held.dismissed ? loaded.held.edit : undefined;
    if (!held && !loaded.criteria && !loaded.cut) throw nothingHeld(loaded);
    const entries: JournalEntry[] = [];
    const adopted: AdoptResult['adopted'] = [];
    let position = loaded.reconciled.position;
    let flow = loaded.flow;
    if (loaded.cut) {
      const { expected, found } = loaded.cut;
      const changes = [
        `events ${found + 1} to ${expected} lost; the run goes on from ${describeTarget(position)}, ${position.status}, retry ${position.retryCount}`,
      ];
      // Nothing of the run is left on record (its \`run_started\` went with the events): the run is pinned again, as any run begun is.
      if (found === 0)
        entries.push(entry('run_started', position, { source: 'state', flow_hash: flow.hash, flow_file: flowFileRef(flow), pinned: pinnedCopy(flow) }));
      entries.push(entry('edit_adopted', position, { what: 'journal', changes }));
      adopted.push({ what: 'journal', changes });
    }
    if (held) {
      position = fromPointerRecord(held.pointer);
      // Another flow: the run is pinned to it now, as any run begun is.
      if (position.flow !== flow.id) {
        flow = loaded.flows.find((f) => f.id === position.flow) ?? flow;
        entries.push(entry('run_started', position, { source: 'state', flow_hash: flow.hash, flow_file: flowFileRef(flow), pinned: pinnedCopy(flow) }));
      }
      entries.push(entry('edit_adopted', position, { what: 'pointer', held }));
      adopted.push({ what: 'pointer', changes: Object.entries(held.edited).map(([k, v]) => `${k} ${String(v.was)} → ${String(v.now)}`) });
    }
    if (loaded.criteria) {
      const { file, now } = loaded.criteria;
      const changes = changeList(loaded.criteria);
      entries.push(entry('edit_adopted', position, { what: 'criteria', changes, criteria: { file, items: now } }));
      adopted.push({ what: 'criteria', changes });
    }
    const pointer = pointerAt({ ...loaded, flow }, position);
    return {
      plan: { entries, pointer: { ...pointer, extras: { ...pointer.extras, held: null } }, flowHash: flow.hash, key: `adopt:${flow.id}` },
      answer: () => ({ adopted, position }),
    };
  });
  return result;
}

function nothingHeld(loaded: Loaded): InputError {
  const dropped = loaded.held?.dismissed ? ' (the held edit of the pointer was dropped: its `## Held Edit` section is gone)' : '';
  return new InputError(
    {
      message: `nothing is held for a person to adopt${dropped}`,
      expected:
        'a hand edit of the pointer past a gate a person owns, an edit of the pinned acceptance criteria, or a journal that lost events (`autopilot status` names each)',
      received: 'none',
    },
    'A hand edit that passes no gate is respected as it is: there is nothing to adopt.',
  );
}
