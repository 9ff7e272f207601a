/**
 * `init`: folders, the git lines the journal and lease need (and
 * `node_modules/` where a `package.json` is and nothing ignores it), each
 * agent client's files (`src/clients/`: the `/autopilot` command, AGENTS.md,
 * the MCP server in its config, the rules that ask the person, with `--hooks`
 * its SessionStart and SessionEnd hooks), and with `--flow` the first
 * pointer. Safe to run again: it adds what is missing and keeps what a person
 * wrote. It says what it did to each file, what to commit, what git ignores,
 * and where the files name a binary that is not installed. Every file goes
 * through the one transaction, so a link out of the repository is refused
 * before anything is written. Each file knows how `uninstall` takes out again
 * exactly what init put in (`app/setup/uninstall.ts`).
 */
import { existsSync, lstatSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { entry } from '../../formats/journal-line.js';
import { atStep } from '../../engine/reconcile.js';
import { InputError, type Problem } from '../../errors.js';
import { loopStart, type Flow } from '../../formats/flow/model.js';
import { FLOW_ID_RULE, flowIdProblem } from '../../formats/flow/ids.js';
import { flowFileRef, pinnedCopy } from '../../engine/pin.js';
import { skillsPinned } from '../transaction/skill-pins.js';
import { TEMP_MARK } from '../../io/atomic-write.js';
import { SETUP_FILE_MAX_BYTES } from '../../limits.js';
import { gatePath, type Repo } from '../../io/repo.js';
import { leftOver, withLines, withoutLines } from '../../clients/config-files.js';
import { AGENT_BIN, type Launch, type SetupFile, type SetupOptions } from '../../clients/client.js';
import { CLIENTS } from '../../clients/index.js';
import { launchOf } from '../../clients/launch.js';
import { packageRoot } from '../../io/package-root.js';
import type { Plan, Written } from '../transaction/commit.js';
import type { Context } from '../transaction/context.js';
import { readPointerText } from '../transaction/load-state.js';
import { loadRepoFlows } from '../transaction/flows.js';
import { brokenFlowError } from '../transaction/invalid-flows.js';
import { transact, type Opened } from '../transaction/transact.js';
import type { CommitSetting } from '../../formats/settings.js';
import { firstCommitMissing, gitFallbackOff } from '../git/source.js';
import { DEFAULT_RUN } from '../../formats/run-name.js';
import { detectFlow } from '../../io/gather-evidence.js';
import { holdsRun, RUNS_FOLDER } from '../../io/run.js';
import { repositoryStart } from '../transaction/run-start.js';
import { withoutVerifyLines, withVerifyLines } from './init-verify.js';
import { foundIn, NO_TESTS, pinEntry, pinToTake } from '../transaction/verify.js';
import { settingsFromText } from '../transaction/settings.js';
import type { FoundTestCommand } from '../../formats/test-command.js';

/** One file init set up: made new, changed (autopilot's lines or entries added), or kept as it was. */
export interface InitFile {
  path: string;
  action: 'created' | 'changed' | 'kept';
}

export interface InitResult {
  /** Every file, in the order init went through them. */
  files: InitFile[];
  created: string[];
  changed: string[];
  kept: string[];
  /** What to commit: the files init wrote (and the run's folder when it started one). */
  commit: string[];
  /** What `.gitignore` keeps out of git: autopilot's own machine-local files, and `node_modules/` where init added it. */
  ignored: string[];
  /** What will not work as written: a binary the configs name that is not installed. */
  warnings: string[];
  pointer?: { flow: string; step: number; name: string };
  /** The named run init started or set up (`--run`); undefined for the default run. */
  run?: string;
  /** A named run started on the repository's output (`app/transaction/run-start.ts`): the folder it reads, the steps that are the repository's. */
  repository?: { read: string; steps: number[] };
  /** What happens to the steps in git, and the one line that turns it off. */
  commits: string;
  /** The project's test command (`verify:` in the settings) and where it was found; null where none is known yet. */
  verify: { command: string | null; foundIn?: string };
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

const CONFIG = '.autopilot/config.yml';

/** The test command the settings name once init has written them, and where it came from (the file it was found in, or the settings). */
async function verifySaid(repo: Repo, setup: SetupChange[]): Promise<InitResult['verify']> {
  const config = setup.find((f) => f.path === join(repo.root, CONFIG));
  const text = config?.text ?? config?.before;
  const command = text === undefined ? undefined : (await settingsFromText(text, CONFIG)).verify;
  if (command === undefined) return { command: null };
  // Written by this init: the file it was found in; else a person's (or an earlier init's) line in the settings.
  const found = config?.text !== undefined && !/^verify\s*:/m.test(config.before ?? '') ? foundIn(repo) : undefined;
  return { command, foundIn: found?.command === command ? found.where : CONFIG };
}

/** What init says about progress commits, as the settings and the repository stand. */
function commitsSaid(repo: Repo, setting: CommitSetting): string {
  const off = '`commit: false` in .autopilot/config.yml turns them off';
  if (setting === false) return 'Progress commits are off (`commit: false` in .autopilot/config.yml).';
  const noGit = gitFallbackOff(repo);
  if (noGit === 'not a git repository')
    return 'Steps are not committed: this folder is not a git repository (`git init` and a first commit turn progress commits on, and let a lost pointer be recovered from history).';
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
    prepare: async ({ repo }: Opened) => ({ flow: await flowToStart(repo, flowId) }),
  };
  const { result } = await transact(ctx, spec, async ({ repo, prepared: { flow }, settings }) => {
    if (flow && readPointerText(repo) !== null) {
      throw new InputError({
        file: relative(repo.root, repo.pointerFile),
        message: 'a pointer already exists; init does not overwrite it',
        expected: 'no pointer yet: `autopilot reset` (a person) moves the old pointer and journal aside and starts the run over',
        received: 'an existing state pointer',
      });
    }
    const launch = launchOf(repo.root, join(packageRoot(), 'bin', 'autopilot.js'));
    const setup = await setupFiles(repo, launch, { hooks: options.hooks === true });
    const plan: Plan = { entries: [], files: setup.filter((f): f is SetupChange & { text: string } => f.text !== undefined) };
    const verify = await verifySaid(repo, setup);
    const based = flow ? repositoryStart(repo, flow) : undefined;
    if (flow) {
      const position = atStep(flow, based?.start ?? flow.steps[0]!, 1);
      // The skills' declarations are pinned with the run, as the flow is.
      const skills = await skillsPinned(repo, flow);
      plan.entries.push(
        entry('run_started', position, {
          source: 'init',
          flow_hash: flow.hash,
          flow_file: flowFileRef(flow),
          pinned: pinnedCopy(flow),
          ...skills,
          repository: based?.repository,
        }),
      );
      // The run is pinned to the project's test command from its start, where one is known.
      const take = verify.command !== null && verify.command !== NO_TESTS ? pinToTake(repo, { verify: verify.command }) : undefined;
      if (take) plan.entries.push(pinEntry(repo, position, { command: take.command, by: verify.foundIn === CONFIG ? 'settings' : 'found' }));
      plan.flowHash = flow.hash;
      plan.skillsHash = skills.skills_hash;
      plan.key = `init:${flow.id}`;
      plan.pointer = { position, extras: { loops: loopStart(flow) !== undefined } };
    }
    const rel = (p: string) => relative(repo.root, p) || p;
    const files: InitFile[] = setup.map((f) => ({ path: rel(f.path), action: f.text === undefined ? 'kept' : f.before === undefined ? 'created' : 'changed' }));
    if (flow) files.push({ path: rel(repo.pointerFile), action: 'created' }, { path: rel(repo.journalFile), action: 'created' });
    const of = (action: InitFile['action']) => files.filter((f) => f.action === action).map((f) => f.path);
    return {
      plan,
      answer: (written: Written): InitResult => ({
        files,
        created: of('created'),
        changed: of('changed'),
        kept: of('kept'),
        commit: toCommit(repo, files),
        ignored: ignoredLines(repo, setup),
        warnings: notInstalled(repo, launch, setup),
        ...(flow ? { pointer: { flow: flow.id, step: based?.start.number ?? 1, name: (based?.start ?? flow.steps[0]!).name } } : {}),
        run: repo.run === DEFAULT_RUN ? undefined : repo.run,
        repository: based?.repository,
        commits: commitsSaid(repo, settings.commit),
        verify,
        written,
      }),
    };
  });
  return result;
}

/**
 * What to commit: the files init wrote, and those it kept that git does not
 * hold as they are (an earlier init not committed yet). Without git, the
 * files it wrote.
 */
function toCommit(repo: Repo, files: InitFile[]): string[] {
  const written = files.filter((f) => f.action !== 'kept').map((f) => f.path);
  const kept = files.filter((f) => f.action === 'kept').map((f) => f.path);
  if (kept.length === 0) return written;
  const { spawnSync } = childProcess();
  const git = spawnSync('git', ['status', '--porcelain=v1', '-z', '--untracked-files=all', '--', ...kept], { cwd: repo.root, encoding: 'utf8' });
  if (git.status !== 0) return written;
  const root = spawnSync('git', ['rev-parse', '--show-prefix'], { cwd: repo.root, encoding: 'utf8' }).stdout?.trim() ?? '';
  const changed = new Set(
    git.stdout
      .split('\0')
      .filter((entry) => entry.length > 3)
      .map((entry) => entry.slice(3))
      .map((path) => (root && path.startsWith(root) ? path.slice(root.length) : path)),
  );
  return files.filter((f) => f.action !== 'kept' || changed.has(f.path)).map((f) => f.path);
}

/** The lines of `.gitignore` autopilot stands behind: its own, and `node_modules/` where it is there. */
function ignoredLines(repo: Repo, setup: SetupChange[]): string[] {
  const gitignore = setup.find((f) => f.path === join(repo.root, '.gitignore'));
  const text = gitignore?.text ?? gitignore?.before ?? '';
  const lines = new Set(text.split(/\r?\n/).map((l) => l.trim()));
  return [...machineLocal(repo), NODE_MODULES].filter((l) => lines.has(l));
}

/**
 * Where a file init writes names the installed binary and the project has
 * none (`node_modules/.bin/autopilot`), or names this copy of autopilot by
 * its absolute path (not installed in the project): what will not work, or
 * only on this machine, and how to fix it.
 */
function notInstalled(repo: Repo, launch: Launch, setup: SetupChange[]): string[] {
  const warnings: string[] = [];
  if (!existsSync(join(repo.root, AGENT_BIN))) {
    const naming = setup.filter((f) => (f.text ?? f.before ?? '').includes(AGENT_BIN)).map((f) => relative(repo.root, f.path));
    if (naming.length > 0)
      warnings.push(`${naming.join(', ')} run ${AGENT_BIN}, which is not installed: \`npm install --save-dev md-autopilot\` in ${repo.root} installs it`);
    if (launch.bin !== AGENT_BIN)
      warnings.push(
        `autopilot is not installed in this project: the agents' files call it as \`${launch.bin}\` (this copy, on this machine only); install it (\`npm install --save-dev md-autopilot\`) and run \`autopilot init\` again so they call ${AGENT_BIN}`,
      );
  }
  return warnings;
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

/**
 * The flow init starts: the one `--flow` names; for a named run without it,
 * the one the folder's detection rules choose, as `next` chooses it for the
 * default run (rule 2); none without `--flow` for the default run or a
 * named run already started.
 */
async function flowToStart(repo: Repo, flowId: string | undefined): Promise<Flow | undefined> {
  if (flowId !== undefined) return chosenFlow(await loadRepoFlows(repo, true), flowId);
  // A named run already started is set up again, as \`init\` is: its files kept, its run as it stands.
  if (repo.run === DEFAULT_RUN || holdsRun(repo.docs)) return undefined;
  const flows = await loadRepoFlows(repo, true);
  const found = detectFlow(repo, flows);
  if (found) return found;
  throw new InputError({
    message: `init --run ${repo.run}: no flow matches this folder`,
    expected: 'a flow chosen by hand: `autopilot init --flow <id>`',
    received: `tried ${flows.map((f) => f.id).join(', ')}`,
  });
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
  if (!flow)
    throw (
      brokenFlowError(flows, flowId) ??
      new InputError({ message: `--flow ${flowId}: no such flow`, expected: `one of ${flows.map((f) => f.id).join(', ')}`, received: flowId })
    );
  return flow;
}

/** A file init sets up: its text before (undefined: not there) and its new text (undefined: it already has what autopilot needs). */
export interface SetupChange {
  path: string;
  before: string | undefined;
  text: string | undefined;
}

/**
 * The folder a run's lines name: the docs folder for the default run, every named run's at once
 * (`_docs/_runs/*`) for a named one, so two runs started on two branches add the same lines and
 * their merge does not conflict on `.gitignore` or `.gitattributes`.
 */
const linesFolder = (repo: Pick<Repo, 'run' | 'docsName' | 'repoDocsName'>) =>
  repo.run === DEFAULT_RUN ? repo.docsName : `${repo.repoDocsName}/${RUNS_FOLDER}/*`;

/** The machine-local files of a run that `.gitignore` keeps out of git. */
export const machineLocal = (repo: Pick<Repo, 'run' | 'docsName' | 'repoDocsName'>) => {
  const local = `/${linesFolder(repo)}/_autopilot`;
  return [`${local}/cache/`, `${local}/lease*`, `${local}/lock*`, `${local}/checkpoints/`, `/${linesFolder(repo)}/*${TEMP_MARK}*`];
};

/** The default run's lines and the named runs' (`uninstall` takes out both, whichever run it was asked about). */
const everyRun = <T>(repo: Repo, lines: (run: Pick<Repo, 'run' | 'docsName' | 'repoDocsName'>) => T[]): T[] => [
  ...lines({ run: DEFAULT_RUN, docsName: repo.repoDocsName, repoDocsName: repo.repoDocsName }),
  ...lines({ run: 'any', docsName: repo.repoDocsName, repoDocsName: repo.repoDocsName }),
];
export const GITIGNORE_HEADER = '# autopilot: files local to one machine';
export const NODE_MODULES = 'node_modules/';
export const NODE_MODULES_HEADER = '# autopilot init: installed packages are not committed';
export const GITATTRIBUTES_HEADER = '# autopilot: keep both sides of the append-only journal on merge';
export const journalUnion = (repo: Pick<Repo, 'run' | 'docsName' | 'repoDocsName'>) => `/${linesFolder(repo)}/_autopilot/journal.jsonl merge=union`;

/**
 * Every file init sets up, as data: the repository's own (`.gitignore`,
 * `.gitattributes`, the settings) and each client's (`src/clients/`), each
 * with what `uninstall` takes out again.
 */
export function repositoryFiles(repo: Repo, options: { nodeModules: boolean; tests?: FoundTestCommand }): SetupFile[] {
  return [
    {
      path: '.gitignore',
      make: (t) => {
        const ours = withLines(t, GITIGNORE_HEADER, machineLocal(repo));
        return options.nodeModules ? (withLines(ours ?? t, NODE_MODULES_HEADER, [NODE_MODULES]) ?? ours) : ours;
      },
      unmake: (t) => {
        const first = withoutLines(t, GITIGNORE_HEADER, everyRun(repo, machineLocal));
        const rest = first.kind === 'edit' ? first.text : first.kind === 'remove' ? '' : t;
        const second = withoutLines(rest, NODE_MODULES_HEADER, [NODE_MODULES]);
        return leftOver(t, second.kind === 'edit' ? second.text : second.kind === 'remove' ? '' : rest);
      },
    },
    {
      path: '.autopilot/config.yml',
      make: (t) => {
        const committed = withCommitLine(t);
        return withVerifyLines(committed ?? t, options.tests) ?? committed;
      },
      unmake: (t) => {
        const first = withoutLines(t, COMMIT_OFF_LINES[0]!, COMMIT_OFF_LINES.slice(1));
        const rest = first.kind === 'edit' ? first.text : first.kind === 'remove' ? '' : t;
        const second = withoutVerifyLines(rest);
        return leftOver(t, second.kind === 'edit' ? second.text : second.kind === 'remove' ? '' : rest);
      },
    },
    {
      path: '.gitattributes',
      make: (t) => withLines(t, GITATTRIBUTES_HEADER, [journalUnion(repo)]),
      unmake: (t) =>
        withoutLines(
          t,
          GITATTRIBUTES_HEADER,
          everyRun(repo, (run) => [journalUnion(run)]),
        ),
    },
  ];
}

/** Whether `node_modules/` is to be ignored and nothing ignores it: a `package.json` here, and git (or, without git, `.gitignore`) does not ignore it. */
function nodeModulesUnignored(repo: Repo): boolean {
  if (!existsSync(join(repo.root, 'package.json'))) return false;
  const git = childProcess().spawnSync('git', ['check-ignore', '-q', '--no-index', NODE_MODULES], { cwd: repo.root, stdio: 'ignore' });
  // 0: ignored; 1: not ignored; anything else (no git, not a repository): read .gitignore.
  if (git.status === 0) return false;
  if (git.status === 1) return true;
  const text = existsSync(join(repo.root, '.gitignore')) ? readFileSync(join(repo.root, '.gitignore'), 'utf8') : '';
  return !text.split(/\r?\n/).some((l) => /^\/?node_modules(\/\**)?$/.test(l.trim()));
}

/** Every file init sets up, with its text before and its new text (undefined where the file already has what autopilot needs). */
async function setupFiles(repo: Repo, launch: Launch, options: SetupOptions): Promise<SetupChange[]> {
  const setup: SetupChange[] = [];
  const tests = foundIn(repo);
  const files = [...repositoryFiles(repo, { nodeModules: nodeModulesUnignored(repo), tests }), ...CLIENTS.flatMap((client) => client.files(launch, options))];
  for (const file of files) {
    const path = join(repo.root, file.path);
    const before = read(repo, path);
    setup.push({ path, before, text: await file.make(before) });
  }
  return setup;
}

/** child_process, loaded on the call: it brings net, dgram and the streams, which no other command of the CLI pays for. */
const childProcess = () => process.getBuiltinModule('node:child_process');
