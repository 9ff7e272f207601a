/** `autopilot log`: the journal, newest last. */
import { readJournal, type StampedEntry } from '../../io/journal.js';
import { displayPath, openRepo, type RepoOptions } from '../../io/repo.js';
import type { Problem } from '../../errors.js';

const BASE_KEYS = new Set(['at', 'session', 'event', 'flow', 'cycle', 'step', 'name', 'index', 'status', 'retry_count']);

export function runLog(options: RepoOptions, limit: number | undefined): { entries: StampedEntry[]; problems: Problem[] } {
  const repo = openRepo(options);
  const { entries, problems } = readJournal(repo.journalFile, displayPath(repo.journalFile, repo.root));
  return { entries: limit === undefined ? entries : entries.slice(-limit), problems };
}

export function logLine(e: StampedEntry): string {
  const details = Object.entries(e)
    .filter(([key]) => !BASE_KEYS.has(key))
    .map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`)
    .join(' ');
  const at = e.step === 'done' ? 'done' : `step ${e.step} ${e.name}`;
  return `${e.at.replace(/\.\d+Z$/, 'Z')}  ${e.event.padEnd(20)} ${e.flow}#${e.cycle} ${at}  [${e.status}, retries ${e.retry_count}]${details ? `  ${details}` : ''}  (${e.session})`;
}
