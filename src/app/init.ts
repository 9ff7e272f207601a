/**
 * `init`: folders, the git lines the journal and lease need, each agent
 * client's files (`src/clients/`: the `/autopilot` command, AGENTS.md, the MCP
 * server in its config, the rules that ask the person, with `--hooks` its
 * SessionStart and SessionEnd hooks), and with `--flow` the first pointer. Safe to run again:
 * it adds what is missing and keeps what a person wrote. Every file goes
 * through the one transaction, so a link out of the repository is refused
 * before anything is written.
 */
import { existsSync, lstatSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { entry } from '../formats/journal-line.js';
import { atStep } from '../engine/reconcile.js';
import { InputError, type Problem } from '../errors.js';
import { loopStart, type Flow } from '../flow/model.js';
import { FLOW_ID_RULE, flowIdProblem } from '../flow/ids.js';
import { flowFileRef, pinnedCopy } from '../engine/pin.js';
import { TEMP_MARK } from '../io/atomic-write.js';
import { SETUP_FILE_MAX_BYTES } from '../limits.js';
import { gatePath, type Repo } from '../io/repo.js';
import { withLines } from '../clients/config-files.js';
import type { SetupFile } from '../clients/client.js';
import { CLIENTS } from '../clients/index.js';
import { launchOf } from '../clients/launch.js';
import { packageRoot } from '../io/package-root.js';
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

/**
 * `check`: the clients' files an older `init` set up that this version's
 * would change (an `/autopilot` text without the table of outcomes, a
 * config missing a rule), a problem each. A file that is not there, or that
 * never mentions autopilot, is no problem: not every project uses every
 * client. Hooks are not judged (whether a person chose them is not known).
 */
export async function outdatedClientFiles(repo: Repo): Promise<Problem[]> {
  const launch = launchOf(repo.root, join(packageRoot(), 'bin', 'autopilot.js'));
  const problems: Problem[] = [];
  for (const client of CLIENTS)
    for (const file of client.files(launch, { hooks: false })) {
      let text: string | undefined;
      let outdated: boolean;
      try {
        text = read(repo, join(repo.root, file.path));
        outdated = text !== undefined && text.includes('autopilot') && (await file.make(text)) !== undefined;
      } catch {
        // Too large, unreadable, not JSON or TOML, out of the repository: `init` says so itself when run.
        continue;
      }
      if (outdated)
        problems.push({
          file: file.path,
          message: `${client.name}'s file is not what this version's \`autopilot init\` writes (set up by an older version, or edited)`,
          expected: 'run `autopilot init` again: it brings its own text and entries up to date and keeps what a person wrote',
        });
    }
  return problems;
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
  const add = async (path: string, make: SetupFile['make']) => {
    setup.push({ path: join(repo.root, path), text: await make(read(repo, join(repo.root, path))) });
  };
  await add('.gitignore', (t) =>
    withLines(t, '# autopilot: files local to one machine', [
      `${local}/cache/`,
      `${local}/lease*`,
      `${local}/lock*`,
      `${local}/checkpoints/`,
      `/${repo.docsName}/*${TEMP_MARK}*`,
    ]),
  );
  await add('.autopilot/config.yml', withCommitLine);
  await add('.gitattributes', (t) => withLines(t, '# autopilot: keep both sides of the append-only journal on merge', [`${local}/journal.jsonl merge=union`]));
  // Each agent client's own files (`src/clients/`).
  const launch = launchOf(repo.root, join(packageRoot(), 'bin', 'autopilot.js'));
  for (const client of CLIENTS) for (const file of client.files(launch, { hooks: options.hooks === true })) await add(file.path, file.make);
  return setup;
}
