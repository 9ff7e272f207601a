/**
 * `init`: folders, the git lines the journal and lease need, the `/autopilot`
 * command for agents, the MCP server in the agents' configs, with `--hooks`
 * Claude Code's SessionStart hook, and with `--flow` the first pointer. Safe to run again:
 * it adds what is missing and keeps what a person wrote. Every file goes
 * through the one transaction, so a link out of the repository is refused
 * before anything is written.
 */
import { existsSync, lstatSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { entry } from '../formats/journal-line.js';
import { atStep } from '../engine/reconcile.js';
import { InputError } from '../errors.js';
import { loopStart, type Flow } from '../flow/model.js';
import { FLOW_ID_RULE, flowIdProblem } from '../flow/ids.js';
import { flowFileRef, pinnedCopy } from '../engine/pin.js';
import { TEMP_MARK } from '../io/atomic-write.js';
import { SETUP_FILE_MAX_BYTES } from '../limits.js';
import { gatePath, type Repo } from '../io/repo.js';
import { AGENTS_BEGIN, AGENTS_END, agentsSection, autopilotCommand, CLAUDE_MD_LINE, claudeCommand, TEXT_MARK } from './agent-instructions.js';
import { launchOf, withClaudeSettings, withCodexHooks, withMcpServer, type Launch } from './agent-config.js';
import type { Plan, Written } from './commit.js';
import type { Context } from './context.js';
import { readPointerText } from './load-state.js';
import { loadRepoFlows } from './flows.js';
import { transact, type Opened } from './transaction.js';
import type { CommitSetting } from '../formats/settings.js';
import { firstCommitMissing, gitFallbackOff } from './git-source.js';

export interface InitResult {
  created: string[];
  kept: string[];
  pointer?: { flow: string; step: number };
  /** What happens to the steps in git, and the one line that turns it off. */
  commits: string;
  written: Written;
}

/** The settings line that turns progress commits off, written commented out: the default stays on, and a person sees how to change it. */
export const COMMIT_OFF_LINES = [
  "# Progress commits: after each step, autopilot commits that step's work with",
  '# the state pointer and the journal (in a repository with a first commit).',
  '# To turn them off, remove the # before the next line:',
  '# commit: false',
];

/** The settings with the progress-commit line added, unless they already have one (set, or commented out). */
function withCommitLine(text: string | undefined): string | undefined {
  if (text !== undefined && /^\s*#?\s*commit\s*:/m.test(text)) return undefined;
  const body = text ?? '';
  const prefix = body === '' ? '' : body.endsWith('\n') ? `${body}\n` : `${body}\n\n`;
  return `${prefix}${COMMIT_OFF_LINES.join('\n')}\n`;
}

/** What init says about progress commits, as the settings and the repository stand. */
function commitsSaid(repo: Repo, setting: CommitSetting): string {
  const off = '`commit: false` in .autopilot/config.yml turns them off';
  if (setting === false) return 'Progress commits are off (`commit: false` in .autopilot/config.yml).';
  const noGit = gitFallbackOff(repo);
  if (noGit) return `Steps are not committed here: ${noGit}.`;
  if (firstCommitMissing(repo))
    return `Steps will be committed from the repository's first commit on: autopilot commits each step's work with its pointer and journal (${off}).`;
  return `Steps are committed: after each step, autopilot commits that step's work with its pointer and journal (${off}).`;
}

function read(repo: Repo, file: string): string | undefined {
  gatePath(repo, file);
  if (!existsSync(file)) return undefined;
  if (lstatSync(file).size > SETUP_FILE_MAX_BYTES) {
    throw new InputError({
      file: relative(repo.root, file),
      message: 'this file is too large for init to add its lines to',
      expected: `at most ${SETUP_FILE_MAX_BYTES} bytes`,
      received: `${lstatSync(file).size} bytes`,
    });
  }
  return readFileSync(file, 'utf8');
}

/** The file with the lines it lacks appended, or undefined when it has them all. */
function withLines(text: string | undefined, header: string, lines: string[]): string | undefined {
  const have = new Set((text ?? '').split(/\r?\n/).map((l) => l.trim()));
  const missing = lines.filter((l) => !have.has(l));
  if (missing.length === 0) return undefined;
  const body = text ?? '';
  const prefix = body === '' ? '' : body.endsWith('\n') ? `${body}\n` : `${body}\n\n`;
  return `${prefix}${header ? `${header}\n` : ''}${missing.join('\n')}\n`;
}

function withAgentsSection(text: string | undefined, launch: Launch): string | undefined {
  const section = agentsSection(launch.bin);
  if (text === undefined) return `# Agents\n\n${section}`;
  const begin = text.indexOf(AGENTS_BEGIN);
  const end = text.indexOf(AGENTS_END);
  const updated =
    begin >= 0 && end > begin ? text.slice(0, begin) + section.trimEnd() + text.slice(end + AGENTS_END.length) : `${text.trimEnd()}\n\n${section}`;
  return updated === text ? undefined : updated;
}

/** A text autopilot wrote (it still says so) is refreshed; a person's own file is kept. */
const ours = (text: string) => (t: string | undefined) => (t === undefined || (t.includes(TEXT_MARK) && t !== text) ? text : undefined);

export async function runInit(ctx: Context, flowId: string | undefined, options: { hooks?: boolean } = {}): Promise<InitResult> {
  const spec = {
    flows: 'none' as const,
    // Validate --flow before touching anything.
    prepare: async ({ repo }: Opened) => (flowId === undefined ? undefined : chosenFlow(await loadRepoFlows(repo, true), flowId)),
  };
  const { result } = await transact(ctx, spec, async ({ repo, prepared: flow, settings }) => {
    if (flow && readPointerText(repo) !== null) {
      throw new InputError({
        file: relative(repo.root, repo.pointerFile),
        message: 'a pointer already exists; init does not overwrite it',
        expected: 'no pointer yet (move the old one aside to start over)',
        received: 'an existing state pointer',
      });
    }
    const setup = await setupFiles(repo, options);
    const plan: Plan = { entries: [], files: setup.filter((f): f is { path: string; text: string } => f.text !== undefined) };
    const folderExisted = existsSync(repo.autopilotDir);
    if (flow) {
      const position = atStep(flow, flow.steps[0]!, 1);
      plan.entries.push(entry('run_started', position, { source: 'init', flow_hash: flow.hash, flow_file: flowFileRef(flow), pinned: pinnedCopy(flow) }));
      plan.flowHash = flow.hash;
      plan.key = `init:${flow.id}`;
      plan.pointer = { position, extras: { loops: loopStart(flow) !== undefined } };
    }
    const rel = (p: string) => relative(repo.root, p) || p;
    return {
      plan,
      answer: (written: Written): InitResult => ({
        created: [...(folderExisted ? [] : [rel(repo.autopilotDir)]), ...plan.files!.map((f) => rel(f.path)), ...(flow ? [rel(repo.pointerFile)] : [])],
        kept: [...(folderExisted ? [rel(repo.autopilotDir)] : []), ...setup.filter((f) => f.text === undefined).map((f) => rel(f.path))],
        ...(flow ? { pointer: { flow: flow.id, step: 1 } } : {}),
        commits: commitsSaid(repo, settings.commit),
        written,
      }),
    };
  });
  return result;
}

/** The flow `--flow` names, checked by the same id rule the loader applies to file names. */
function chosenFlow(flows: Flow[], flowId: string): Flow {
  const badId = flowIdProblem(flowId);
  if (badId)
    throw new InputError({
      message: `--flow ${flowId} is not a flow id: ${badId}`,
      expected: `a flow id like \`bug-fix\`: ${FLOW_ID_RULE}`,
      received: flowId,
    });
  const flow = flows.find((f) => f.id === flowId);
  if (!flow) throw new InputError({ message: `--flow ${flowId}: no such flow`, expected: `one of ${flows.map((f) => f.id).join(', ')}`, received: flowId });
  return flow;
}

/** Every file init sets up, with its new text, or undefined where the file already has what autopilot needs. */
async function setupFiles(repo: Repo, options: { hooks?: boolean }): Promise<{ path: string; text: string | undefined }[]> {
  const local = `/${repo.docsName}/_autopilot`;
  const setup: { path: string; text: string | undefined }[] = [];
  const add = (path: string, make: (text: string | undefined) => string | undefined) =>
    setup.push({ path: join(repo.root, path), text: make(read(repo, join(repo.root, path))) });
  add('.gitignore', (t) =>
    withLines(t, '# autopilot: files local to one machine', [
      `${local}/cache/`,
      `${local}/lease*`,
      `${local}/lock*`,
      `${local}/checkpoints/`,
      `/${repo.docsName}/*${TEMP_MARK}*`,
    ]),
  );
  add('.autopilot/config.yml', withCommitLine);
  add('.gitattributes', (t) => withLines(t, '# autopilot: keep both sides of the append-only journal on merge', [`${local}/journal.jsonl merge=union`]));
  const launch = launchOf(repo.root);
  add('.claude/commands/autopilot.md', ours(claudeCommand(launch.bin)));
  add('.cursor/commands/autopilot.md', ours(autopilotCommand(launch.bin)));
  add('AGENTS.md', (t) => withAgentsSection(t, launch));
  add('CLAUDE.md', (t) => withLines(t, '', [CLAUDE_MD_LINE]));
  for (const file of ['.mcp.json', '.cursor/mcp.json']) add(file, (t) => withMcpServer(t, file, launch));
  add('.claude/settings.json', (t) => withClaudeSettings(t, '.claude/settings.json', launch, options.hooks === true));
  // Codex: its TOML files load their parser only here.
  const { codexRules, withCodexServer } = await import('./codex-config.js');
  add('.codex/config.toml', (t) => withCodexServer(t, '.codex/config.toml', launch));
  add('.codex/rules/autopilot.rules', (t) => (t === codexRules(launch) ? undefined : codexRules(launch)));
  if (options.hooks) add('.codex/hooks.json', (t) => withCodexHooks(t, '.codex/hooks.json', launch));
  return setup;
}
