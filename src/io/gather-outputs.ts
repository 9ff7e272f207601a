/**
 * Gathers, at the edge, what the judges of a step's declared outputs read
 * (`engine/evidence.ts`, `OutputsEvidence`): each output's files and their
 * text, its template, the acceptance criteria and the names beside a file
 * when a judge needs them; and the hashes of a step's evidence files, which
 * the journal records as an attempt begins. Only `done` reads the texts, and
 * only `next`, `fail` and a repeating `decide` hash them, for a step whose
 * skill declares outputs. Every read is bounded (`limits.ts`); a file too
 * large or unreadable becomes a finding, never a crash.
 */
import { lstatSync, readdirSync, readlinkSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';
import type { OutputsEvidence } from '../engine/evidence.js';
import { ACCEPTANCE_FILE, comparable, needsOf } from '../evidence/index.js';
import type { FileHashes, OutputDeclaration, SkillOutputs, TaskFile } from '../evidence/index.js';
import { readTaskTable, taskFileNames } from '../evidence/task-table.js';
import { withCycle, type Step } from '../formats/flow/model.js';
import { hashText } from '../hash.js';
import { EVIDENCE_MATCH_LIMIT, HASHED_FILES_MAX, OUTPUT_FILE_MAX_BYTES, TASK_FILE_MAX_BYTES, TASK_FILES_READ_MAX, TEMPLATE_MAX_BYTES } from '../limits.js';
import { findMatches } from './find-matches.js';
import { readBounded } from './read-bounded.js';
import { displayPath, type Repo } from './repo.js';
import { skillFile } from './skills.js';

/** A content hash short enough for a journal line: 16 hex digits of the sha1 of what a reader sees of the text (`comparable`). */
const shortHash = (text: string) => hashText(comparable(text)).slice(0, 16);
/** The same of the exact text: what journals before recorded (evidence/fresh.ts reads both). */
const exactHash = (text: string) => hashText(text).slice(0, 16);

function matchesOf(repo: Repo, pattern: string, cycle: number): string[] {
  const within = { root: repo.root, refused: () => {} };
  return findMatches(repo.docs, withCycle(pattern, cycle), EVIDENCE_MATCH_LIMIT, within);
}

/** The step's evidence files: its Done-when matches and its declared outputs', each once, in order. */
export function stepFiles(repo: Repo, step: Step, cycle: number, declared: SkillOutputs): string[] {
  const patterns = [...step.doneWhen.filter((p) => !p.endsWith('/')), ...declared.outputs.map((o) => o.file)];
  return [...new Set(patterns.flatMap((p) => matchesOf(repo, p, cycle)))];
}

/** Each file with a hash of what a reader sees of it, as the journal records them; undefined when the step has more files than a journal line should list. */
export function hashFiles(repo: Repo, files: readonly string[]): FileHashes | undefined {
  return bothHashes(repo, files)?.hashes;
}

/** The same, and each file's exact-text hash beside (an older journal's record). */
function bothHashes(repo: Repo, files: readonly string[]): { hashes: FileHashes; exact: FileHashes } | undefined {
  if (files.length > HASHED_FILES_MAX) return undefined;
  const hashes: Record<string, string> = {};
  const exact: Record<string, string> = {};
  for (const file of files) {
    const read = readBounded(join(repo.docs, file), displayPath(join(repo.docs, file), repo.root), 'output file', OUTPUT_FILE_MAX_BYTES);
    if ('problem' in read) hashes[file] = exact[file] = `unread:${read.problem.received ?? read.problem.message}`;
    else [hashes[file], exact[file]] = [shortHash(read.text), exactHash(read.text)];
  }
  return { hashes, exact };
}

/** What the judges of `declared` read for `step` in `cycle`; the journal's part (`attempt`, `round`) is the caller's. */
export function gatherOutputs(repo: Repo, step: Step, cycle: number, declared: SkillOutputs & { dir: string; templateHashes?: FileHashes }): OutputsEvidence {
  const needs = needsOf(declared.outputs);
  const docsShown = (rel: string) => displayPath(join(repo.docs, rel), repo.root);
  const outputs = declared.outputs.map((output) => {
    let template: string | undefined;
    let templateChanged: string | undefined;
    if (output.template) {
      const read = readTemplate(declared, output.template);
      template = read.text;
      templateChanged = read.changed;
    }
    const tasks = needsOf([output]).taskFiles === true;
    const files = matchesOf(repo, output.file, cycle).map((file) => {
      const read = readBounded(join(repo.docs, file), docsShown(file), 'output file', OUTPUT_FILE_MAX_BYTES);
      if ('problem' in read) return { file, problem: read.problem.message };
      const siblings = needs.siblings ? siblingsOf(repo, file) : undefined;
      return { file, text: read.text, siblings, taskFiles: tasks && siblings ? taskFilesOf(repo, file, read.text, siblings) : undefined };
    });
    return { output, template, templateChanged, taskTemplate: tasks ? taskTemplateOf(repo, declared.dir, output) : undefined, files };
  });
  let acceptance: string | undefined;
  if (needs.acceptance) {
    const read = readBounded(join(repo.docs, ACCEPTANCE_FILE), docsShown(ACCEPTANCE_FILE), 'acceptance criteria', OUTPUT_FILE_MAX_BYTES);
    if ('text' in read) acceptance = read.text;
  }
  return {
    skill: declared.skill,
    skillFile: declared.file,
    outputs,
    ...(acceptance !== undefined ? { acceptance } : {}),
    ...(bothHashes(repo, stepFiles(repo, step, cycle, declared)) ?? { hashes: {} }),
  };
}

/**
 * A template of a skill's folder: its text, and, for a declaration the run
 * pinned (`templateHashes`), what changed when it is not the text pinned
 * (its text is then not handed to the judges).
 */
export function readTemplate(declared: { dir: string; templateHashes?: FileHashes }, template: string): { text?: string; changed?: string } {
  const read = readBounded(join(declared.dir, template), template, 'template', TEMPLATE_MAX_BYTES);
  const text = 'text' in read ? read.text : undefined;
  const pinned = declared.templateHashes?.[template];
  if (pinned === undefined) return { text };
  const now = text === undefined ? 'missing' : exactHash(text);
  if (now === pinned) return { text };
  return {
    changed: `the template ${template} ${now === 'missing' ? 'is gone' : pinned === 'missing' ? 'is new' : 'changed'} since this run pinned its skills`,
  };
}

/** The names in the folder of a file (relative to the docs folder), but its own. */
function siblingsOf(repo: Repo, file: string): string[] {
  try {
    const own = posix.basename(file);
    return readdirSync(dirname(join(repo.docs, file)))
      .filter((n) => n !== own)
      .slice(0, EVIDENCE_MATCH_LIMIT * 10);
  } catch {
    return [];
  }
}

function readTemplateText(path: string, shown: string): string | undefined {
  const read = readBounded(path, shown, 'template', TEMPLATE_MAX_BYTES);
  return 'text' in read ? read.text : undefined;
}

/** The task template of a task index: `task.md` beside the output's template, else the decompose skill's (the repository's own first). */
function taskTemplateOf(repo: Repo, dir: string, output: OutputDeclaration): string | undefined {
  const beside = join(dir, output.template ? dirname(output.template) : 'templates', 'task.md');
  return readTemplateText(beside, 'task.md') ?? readTemplateText(join(dirname(skillFile(repo, 'decompose').path), 'templates', 'task.md'), 'task.md');
}

/**
 * What the disk says of each file beside the index `file` that a row of its
 * task table names: `lstat`, so a link is seen as a link and never followed;
 * a regular file's text, bounded. The first TASK_FILES_READ_MAX are read.
 */
function taskFilesOf(repo: Repo, file: string, text: string, siblings: readonly string[]): Record<string, TaskFile> {
  const out: Record<string, TaskFile> = {};
  const names = (readTaskTable(text) ?? []).flatMap((row) => taskFileNames(row.id, siblings));
  for (const name of names.slice(0, TASK_FILES_READ_MAX)) {
    const rel = posix.join(posix.dirname(file), name);
    out[name] = taskFileAt(join(repo.docs, rel), displayPath(join(repo.docs, rel), repo.root));
  }
  return out;
}

function taskFileAt(path: string, shown: string): TaskFile {
  try {
    const stat = lstatSync(path);
    if (stat.isSymbolicLink()) return { kind: 'link', target: readlinkSync(path) };
    if (stat.isDirectory()) return { kind: 'folder' };
    if (stat.isCharacterDevice() || stat.isBlockDevice()) return { kind: 'device' };
    if (stat.isFIFO()) return { kind: 'pipe' };
    if (stat.isSocket()) return { kind: 'socket' };
    if (!stat.isFile()) return { kind: 'other' };
  } catch (error) {
    return { kind: 'file', problem: (error as NodeJS.ErrnoException).code ?? String(error) };
  }
  const read = readBounded(path, shown, 'task file', TASK_FILE_MAX_BYTES);
  return 'text' in read ? { kind: 'file', text: read.text } : { kind: 'file', problem: read.problem.message };
}
