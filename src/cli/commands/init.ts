/**
 * `autopilot init`: folders, the git lines the journal and lease need, the
 * `/autopilot` command for agents, and with `--flow` the first pointer.
 * Safe to run again: it adds what is missing and keeps what a person wrote.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { entry } from '../../engine/journal-entry.js';
import { atStep } from '../../engine/reconcile.js';
import { InputError } from '../../errors.js';
import { FLOW_ID_RULE, flowIdProblem } from '../../flow/ids.js';
import { loopStart, type Flow } from '../../flow/model.js';
import { writeFileAtomically } from '../../io/atomic-write.js';
import { appendJournal, stamp } from '../../io/journal.js';
import { loadFlows } from '../../io/load-flows.js';
import { openRepo, type RepoOptions } from '../../io/repo.js';
import { serializePointer } from '../../state/serialize-pointer.js';
import { AGENTS_BEGIN, AGENTS_END, AGENTS_SECTION, AUTOPILOT_COMMAND, CLAUDE_COMMAND } from '../agent-instructions.js';
import { readPointerText } from '../load-state.js';
import type { Writer } from '../persist.js';

export interface InitResult {
  created: string[];
  kept: string[];
  pointer?: { flow: string; step: number };
}

function read(file: string): string | undefined {
  return existsSync(file) ? readFileSync(file, 'utf8') : undefined;
}

/** Appends the lines `file` lacks; returns whether it wrote. */
function ensureLines(file: string, header: string, lines: string[]): boolean {
  const text = read(file) ?? '';
  const have = new Set(text.split(/\r?\n/).map((l) => l.trim()));
  const missing = lines.filter((l) => !have.has(l));
  if (missing.length === 0) return false;
  const prefix = text === '' ? '' : text.endsWith('\n') ? `${text}\n` : `${text}\n\n`;
  writeFileSync(file, `${prefix}${header}\n${missing.join('\n')}\n`);
  return true;
}

function ensureFile(file: string, content: string): boolean {
  if (existsSync(file)) return false;
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, content);
  return true;
}

function ensureAgentsSection(file: string): boolean {
  const text = read(file);
  if (text === undefined) {
    writeFileSync(file, `# Agents\n\n${AGENTS_SECTION}`);
    return true;
  }
  const begin = text.indexOf(AGENTS_BEGIN);
  const end = text.indexOf(AGENTS_END);
  const updated =
    begin >= 0 && end > begin
      ? text.slice(0, begin) + AGENTS_SECTION.trimEnd() + text.slice(end + AGENTS_END.length)
      : `${text.trimEnd()}\n\n${AGENTS_SECTION}`;
  if (updated === text) return false;
  writeFileSync(file, updated);
  return true;
}

export async function runInit(options: RepoOptions, flowId: string | undefined, writer: Writer): Promise<InitResult> {
  const repo = openRepo(options);
  const result: InitResult = { created: [], kept: [] };
  const note = (file: string, wrote: boolean) => (wrote ? result.created : result.kept).push(relative(repo.root, file) || file);

  // Validate --flow before touching anything.
  let flow: Flow | undefined;
  if (flowId !== undefined) {
    // The loader names a flow file like `My_Flow.md` first; the argument is checked by the same rule.
    const { flows, problems } = await loadFlows(repo, { writeCache: true });
    if (problems.length > 0) throw new InputError(problems);
    const badId = flowIdProblem(flowId);
    if (badId)
      throw new InputError({
        message: `--flow ${flowId} is not a flow id: ${badId}`,
        expected: `a flow id like \`bug-fix\`: ${FLOW_ID_RULE}`,
        received: flowId,
      });
    flow = flows.find((f) => f.id === flowId);
    if (!flow) throw new InputError({ message: `--flow ${flowId}: no such flow`, expected: `one of ${flows.map((f) => f.id).join(', ')}`, received: flowId });
    if (readPointerText(repo) !== null) {
      throw new InputError({
        file: relative(repo.root, repo.pointerFile),
        message: 'a pointer already exists; init does not overwrite it',
        expected: 'no pointer yet (move the old one aside to start over)',
        received: 'an existing state pointer',
      });
    }
  }

  const docsExisted = existsSync(repo.autopilotDir);
  mkdirSync(repo.autopilotDir, { recursive: true });
  note(repo.autopilotDir, !docsExisted);
  const local = `/${repo.docsName}/_autopilot`;
  note(
    join(repo.root, '.gitignore'),
    ensureLines(join(repo.root, '.gitignore'), '# autopilot: files local to one machine', [`${local}/cache/`, `${local}/lease*`]),
  );
  note(
    join(repo.root, '.gitattributes'),
    ensureLines(join(repo.root, '.gitattributes'), '# autopilot: keep both sides of the append-only journal on merge', [`${local}/journal.jsonl merge=union`]),
  );
  note(join(repo.root, '.claude/commands/autopilot.md'), ensureFile(join(repo.root, '.claude/commands/autopilot.md'), CLAUDE_COMMAND));
  note(join(repo.root, '.cursor/commands/autopilot.md'), ensureFile(join(repo.root, '.cursor/commands/autopilot.md'), AUTOPILOT_COMMAND));
  note(join(repo.root, 'AGENTS.md'), ensureAgentsSection(join(repo.root, 'AGENTS.md')));

  if (flow) {
    const position = atStep(flow, flow.steps[0]!, 1);
    appendJournal(
      repo.journalFile,
      stamp([entry('run_started', position, { source: 'init', flow_hash: flow.hash, flow_file: flow.file })], writer.session, writer.now()),
    );
    writeFileAtomically(repo.pointerFile, serializePointer(position, { loops: loopStart(flow) !== undefined }));
    note(repo.pointerFile, true);
    result.pointer = { flow: flow.id, step: 1 };
  }
  return result;
}
