/**
 * The text of a progress commit, and reading it back: a subject a reviewer
 * reads in `git log --oneline`, an optional body, and trailers a program
 * reads (`Autopilot-Flow: greenfield`). Pure: no git, no disk, so building a
 * message costs a caller nothing.
 */
import { STATUSES, type Status } from '../formats/pointer/position.js';
import { BIDI_CLASS } from '../formats/bidi.js';

export const TRAILER = {
  flow: 'Autopilot-Flow',
  step: 'Autopilot-Step',
  name: 'Autopilot-Name',
  status: 'Autopilot-Status',
  cycle: 'Autopilot-Cycle',
  session: 'Autopilot-Session',
  event: 'Autopilot-Event',
  run: 'Autopilot-Run',
} as const;

export interface ProgressFacts {
  flow: string;
  /** The pointer's step after the command: a number, or `done`. */
  step: number | 'done';
  /** How many steps the flow has, for the subject's `3/10`. */
  steps: number;
  name: string;
  status: Status;
  cycle: number;
  session: string;
  /**
   * The sequence number of the journal event the commit records: what makes
   * the commit findable again (`findProgressCommit`), so a retry after a kill
   * commits once.
   */
  event?: number;
  /** Free text for the reviewer, kept on several lines. */
  body?: string;
  /** The batch of the task index the commit holds (`batch 2 of 3 done (tasks 03, 04)`), said in the subject. */
  batch?: string;
  /** A named run's name (docs/runs.md): its commits carry it, the default run's carry none. */
  run?: string;
}

export interface CommitMessage {
  /** The subject line, then optionally a blank line and a body. */
  message: string;
  /** Trailer name → value, written in this order after the message. */
  trailers: Record<string, string>;
}

const MAX_LINE = 200;
// Control characters (C0 and C1), the Unicode line and paragraph separators, and the bidirectional controls.
const CONTROL = new RegExp(`[\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029${BIDI_CLASS}]`, 'g');
// The same, sparing the line feed and the tab.
const CONTROL_IN_TEXT = new RegExp(`[\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f\\u2028\\u2029${BIDI_CLASS}]`, 'g');

/**
 * One line of free text: control characters (newlines included) and runs of
 * white space become one space, and a long text is cut, so a name or session
 * cannot end a subject early or forge a trailer.
 */
export function oneLine(text: string, max = MAX_LINE): string {
  const flat = text.replace(CONTROL, ' ').replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1).trimEnd()}…` : flat;
}

/** Free text on several lines: line ends made `\n`, other control characters dropped, blank runs folded. */
function paragraphs(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .replace(CONTROL_IN_TEXT, '')
    .split('\n')
    .map((line) => line.trimEnd())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** `autopilot: greenfield 3/10 Plan completed`, its body, and the six trailers. */
export function progressMessage(facts: ProgressFacts): CommitMessage {
  const flow = oneLine(facts.flow, 60);
  const where =
    facts.step === 'done'
      ? `${flow} done`
      : `${flow} ${facts.step}/${facts.steps} ${oneLine(facts.name, 80)} ${facts.status.replace(/_/g, ' ')}`.replace(/\s+/g, ' ');
  const subject = `autopilot: ${where}${facts.batch ? `, ${oneLine(facts.batch, 120)}` : ''}${facts.cycle > 1 ? ` (cycle ${facts.cycle})` : ''}`;
  const body = facts.body === undefined ? '' : paragraphs(facts.body);
  return {
    message: body ? `${subject}\n\n${body}` : subject,
    trailers: {
      [TRAILER.flow]: facts.flow,
      [TRAILER.step]: String(facts.step),
      [TRAILER.name]: facts.name,
      [TRAILER.status]: facts.status,
      [TRAILER.cycle]: String(facts.cycle),
      [TRAILER.session]: facts.session,
      ...(facts.event === undefined ? {} : { [TRAILER.event]: String(facts.event) }),
      ...(facts.run === undefined ? {} : { [TRAILER.run]: facts.run }),
    },
  };
}

const TRAILER_KEY = /^[A-Za-z0-9][A-Za-z0-9-]*$/;

export interface FileChange {
  path: string;
  change: 'added' | 'modified' | 'deleted';
}

/** How much of the file list a commit body shows. */
export const FILE_LIST_LIMITS = { folders: 12, namesPerFolder: 8 } as const;

/**
 * The files of a commit by folder, one line per folder, for a reviewer to
 * see the shape of the work: `src/ (3): a.ts, b.ts (new), c.ts (deleted)`.
 * Folders in path order, files in name order; at most `folders` lines and
 * `namesPerFolder` names a line, the rest counted (`… 4 more`). Names are
 * flattened to one line. `''` for no files.
 */
export function filesByFolder(files: readonly FileChange[], limits: { folders: number; namesPerFolder: number } = FILE_LIST_LIMITS): string {
  const folders = new Map<string, FileChange[]>();
  for (const file of files) {
    const slash = file.path.lastIndexOf('/');
    const folder = slash < 0 ? './' : file.path.slice(0, slash + 1);
    folders.set(folder, [...(folders.get(folder) ?? []), file]);
  }
  const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  const names = [...folders.keys()].sort(byName);
  const lines = names.slice(0, limits.folders).map((folder) => {
    const inFolder = folders.get(folder)!.sort((a, b) => byName(a.path, b.path));
    const shown = inFolder.slice(0, limits.namesPerFolder).map((file) => {
      const name = oneLine(folder === './' ? file.path : file.path.slice(folder.length), 80);
      return file.change === 'added' ? `${name} (new)` : file.change === 'deleted' ? `${name} (deleted)` : name;
    });
    const more = inFolder.length - shown.length;
    return `${oneLine(folder, 120)} (${inFolder.length}): ${shown.join(', ')}${more > 0 ? `, … ${more} more` : ''}`;
  });
  const rest = names.slice(limits.folders);
  if (rest.length > 0) {
    const count = rest.reduce((sum, folder) => sum + folders.get(folder)!.length, 0);
    lines.push(`… ${count} more ${count === 1 ? 'file' : 'files'} in ${rest.length} more ${rest.length === 1 ? 'folder' : 'folders'}`);
  }
  return lines.join('\n');
}

/**
 * The whole commit message: the message, the files by folder when given
 * (`filesByFolder`), a blank line, one `Key: value` line per trailer (values
 * flattened to one line; an empty value leaves its line out). The trailers
 * are the last paragraph, where git looks for them.
 */
export function commitText({ message, trailers }: CommitMessage, files: readonly FileChange[] = []): string {
  const [subject = '', ...rest] = message.replace(/\r\n?/g, '\n').split('\n');
  const head = oneLine(subject);
  if (!head) throw new TypeError('a progress commit needs a subject line');
  const body = paragraphs(rest.join('\n'));
  const lines: string[] = [];
  for (const [key, value] of Object.entries(trailers)) {
    if (!TRAILER_KEY.test(key)) throw new TypeError(`not a trailer name: ${JSON.stringify(key)}`);
    const flat = oneLine(value);
    if (flat) lines.push(`${key}: ${flat}`);
  }
  return [head, body, filesByFolder(files), lines.join('\n')].filter(Boolean).join('\n\n') + '\n';
}

export interface ProgressTrailers {
  flow: string;
  step: number | 'done';
  /** `''` when the commit did not name the step. */
  name: string;
  status: Status;
  /** 1 when the commit did not say. */
  cycle: number;
  /** `''` when the commit did not say. */
  session: string;
  /** The journal event the commit records; absent when the commit did not say. */
  event?: number;
  /** The named run the commit is of; absent for the default run's. */
  run?: string;
}

/**
 * Reads the trailer lines of one commit (`git log --format=%(trailers:only,unfold)`).
 * Anything odd makes the whole commit unreadable (undefined) rather than half
 * read: a missing flow, step or status, a value of the wrong form, a trailer
 * given twice with different values.
 */
export function parseProgressTrailers(text: string): ProgressTrailers | undefined {
  const wanted = new Map(Object.values(TRAILER).map((key) => [key.toLowerCase(), key]));
  const values = new Map<string, string>();
  for (const line of text.split('\n')) {
    const match = /^([A-Za-z0-9-]+)\s*:\s*(.*?)\s*$/.exec(line);
    const key = match && wanted.get(match[1]!.toLowerCase());
    if (!key) continue;
    const value = match[2]!;
    if (values.has(key) && values.get(key) !== value) return undefined;
    values.set(key, value);
  }
  const flow = values.get(TRAILER.flow);
  const step = values.get(TRAILER.step)?.toLowerCase();
  const status = values.get(TRAILER.status)?.toLowerCase();
  const cycle = values.get(TRAILER.cycle) ?? '1';
  const event = values.get(TRAILER.event);
  const run = values.get(TRAILER.run);
  if (!flow || !/^[a-z0-9][a-z0-9-]*$/.test(flow)) return undefined;
  if (!step || !(step === 'done' || /^[1-9]\d{0,5}$/.test(step))) return undefined;
  if (!status || !(STATUSES as readonly string[]).includes(status)) return undefined;
  if (!/^[1-9]\d{0,5}$/.test(cycle)) return undefined;
  if (event !== undefined && !/^(0|[1-9]\d{0,14})$/.test(event)) return undefined;
  return {
    flow,
    step: step === 'done' ? 'done' : Number(step),
    name: values.get(TRAILER.name) ?? '',
    status: status as Status,
    cycle: Number(cycle),
    session: values.get(TRAILER.session) ?? '',
    ...(event === undefined ? {} : { event: Number(event) }),
    run,
  };
}
