/**
 * `uninstall`: takes out exactly what `init` put in (`app/setup/init.ts`, each
 * client's files and folders in `src/clients/`): its lines in shared files
 * (.gitignore, .gitattributes, and the clients' instructions, MCP servers,
 * permission rules and hooks), its own files where they are still as it
 * wrote them (a changed one is left, and said so), then the folders it made
 * that are left empty. The run's docs folder stays unless asked
 * (`--remove-docs`): it holds the work. Asked, it loses autopilot's files and
 * the step outputs the run's journal names, never a person's own notes beside
 * them (`docs-removal.ts`), which are kept and listed. Whatever version of the command line
 * wrote a file (the installed binary, or this copy by its path), it is
 * recognised.
 */
import { existsSync, lstatSync, readdirSync, readFileSync, rmdirSync, unlinkSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import type { Removal, SetupFile } from '../../clients/client.js';
import { CLIENTS, clientFolders } from '../../clients/index.js';
import { everyLaunch } from '../../clients/launch.js';
import { InputError } from '../../errors.js';
import { writeFileAtomically } from '../../io/atomic-write.js';
import { packageRoot } from '../../io/package-root.js';
import { gatePath, openRepo, type Repo } from '../../io/repo.js';
import { SETUP_FILE_MAX_BYTES } from '../../limits.js';
import type { Context } from '../transaction/context.js';
import { removeOurs, sortDocs, type SortedDocs } from './docs-removal.js';
import { changedInGit } from '../git/changed.js';
import { repositoryFiles } from './init.js';

export interface UninstallFile {
  path: string;
  /** `removed`: it held only autopilot's; `edited`: autopilot's part taken out; `left`: changed since autopilot wrote it. */
  action: 'removed' | 'edited' | 'left';
  why?: string;
}

export interface UninstallResult {
  files: UninstallFile[];
  /**
   * The run's docs folder: removed (`--remove-docs`, nothing of a person's in it), kept, or not there. With
   * `--remove-docs`, `removed` lists autopilot's files taken out and `kept` a person's left in place (the
   * folder is then kept), each relative to the repository.
   */
  docs: { path: string; state: 'removed' | 'kept' | 'absent'; removed?: string[]; kept?: string[] };
  /** What to commit: the paths it removed or edited that git tracks (never all of the work tree); undefined without git. */
  commit?: string[];
}

/** The setup folders init may have made, deepest first: removed where empty. */
const folders = () => [...clientFolders(), '.autopilot'];

/** The removal that does something, of those the candidates found: an edit or removal first, else a change said. */
function best(removals: Removal[]): Removal {
  return removals.find((r) => r.kind === 'edit' || r.kind === 'remove') ?? removals.find((r) => r.kind === 'changed') ?? { kind: 'none' };
}

/** Each setup file there is, judged: what `uninstall` does to it. One too large or out of the repository stops the command. */
async function planSetup(repo: Repo): Promise<{ path: string; removal: Removal }[]> {
  const script = join(packageRoot(), 'bin', 'autopilot.js');
  // Every spelling a file may carry: each launch, with the hooks; the node_modules line wherever it is.
  const byPath = new Map<string, SetupFile[]>();
  const candidates = [
    ...repositoryFiles(repo, { nodeModules: true }),
    ...everyLaunch(script).flatMap((launch) => CLIENTS.flatMap((client) => client.files(launch, { hooks: true }))),
  ];
  for (const file of candidates) byPath.set(file.path, [...(byPath.get(file.path) ?? []), file]);
  const planned: { path: string; removal: Removal }[] = [];
  for (const [path, setups] of byPath) {
    const file = join(repo.root, path);
    gatePath(repo, file);
    if (!existsSync(file)) continue;
    const size = lstatSync(file).size;
    if (size > SETUP_FILE_MAX_BYTES)
      throw new InputError({
        file: path,
        message: 'this file is too large for uninstall to read',
        expected: `at most ${SETUP_FILE_MAX_BYTES} bytes`,
        received: `${size} bytes`,
      });
    const text = readFileSync(file, 'utf8');
    const removals: Removal[] = [];
    for (const setup of setups) removals.push(await setup.unmake(text));
    planned.push({ path, removal: best(removals) });
  }
  return planned;
}

/** With `--remove-docs`, the docs folder sorted into autopilot's files and a person's; refused where it is the repository itself. */
async function planDocs(repo: Repo, docsPath: string): Promise<SortedDocs> {
  gatePath(repo, repo.docs);
  if (relative(repo.root, repo.docs) === '' || relative(repo.root, repo.docs).startsWith('..'))
    throw new InputError({
      file: docsPath,
      message: '--remove-docs: the docs folder is the repository itself; nothing is removed',
      expected: 'a docs folder inside the repository',
    });
  return sortDocs(repo);
}

export async function runUninstall(ctx: Context, options: { removeDocs?: boolean } = {}): Promise<UninstallResult> {
  // The repository's, whichever run is named: uninstall takes out every run's files (docs/runs.md).
  const repo = openRepo({ ...ctx.repo, run: undefined });
  const docsPath = relative(repo.root, repo.docs) || repo.docs;
  // Judge every file first: nothing is changed before all of it is known.
  const planned = await planSetup(repo);
  const sorted = options.removeDocs && existsSync(repo.docs) ? await planDocs(repo, docsPath) : undefined;
  const files: UninstallFile[] = [];
  for (const { path, removal } of planned) {
    const file = join(repo.root, path);
    if (removal.kind === 'remove') {
      unlinkSync(file);
      files.push({ path, action: 'removed' });
    } else if (removal.kind === 'edit') {
      writeFileAtomically(file, removal.text);
      files.push({ path, action: 'edited' });
    } else if (removal.kind === 'changed') files.push({ path, action: 'left', why: removal.why });
  }
  for (const folder of folders()) removeIfEmpty(join(repo.root, folder));
  const touched = files.filter((f) => f.action !== 'left').map((f) => f.path);
  if (sorted) {
    // Only autopilot's files go: a person's own notes stay where they are, listed.
    removeOurs(repo, sorted);
    const docs = { path: docsPath, state: existsSync(repo.docs) ? ('kept' as const) : ('removed' as const), removed: sorted.ours, kept: sorted.persons };
    return { files, docs, commit: changedInGit(repo, [...touched, ...sorted.ours]) };
  }
  if (!existsSync(repo.docs)) return { files, docs: { path: docsPath, state: 'absent' }, commit: changedInGit(repo, touched) };
  // What init and a lock leave in a repository that never ran: empty folders.
  removeIfEmpty(repo.autopilotDir);
  if (dirname(repo.autopilotDir) !== repo.docs) removeIfEmpty(dirname(repo.autopilotDir));
  removeIfEmpty(repo.docs);
  return { files, docs: { path: docsPath, state: existsSync(repo.docs) ? 'kept' : 'absent' }, commit: changedInGit(repo, touched) };
}

function removeIfEmpty(folder: string): void {
  try {
    if (readdirSync(folder).length === 0) rmdirSync(folder);
  } catch {
    // Not there, or not a folder: nothing of ours.
  }
}
