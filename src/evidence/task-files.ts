/**
 * The task files of a task index are real (part of `task-index`): each file
 * beside the index that a task row names (`<id>_….md`) is a regular file —
 * not a link, wherever it points (`/dev/null`, `/etc/passwd`), nor a folder,
 * a device, a pipe or a socket — holds text, and has every `## ` section of
 * the task template with content under it and nothing of the template left
 * to fill in (`sections`, `placeholders`). A finding names the task file, and
 * its line and heading where there is one. The disk's facts are gathered at
 * the edge (`io/gather-outputs.ts`, `lstat`); this judge only reads them. Pure.
 */
import { headingKey, linesOf, sectionsOf } from './markdown.js';
import { placeholders } from './placeholders.js';
import { sections } from './sections.js';
import { SELF_CHECK_HEADING } from './self-check.js';
import type { Finding, TaskFile } from './types.js';

const KIND: Readonly<Record<Exclude<TaskFile['kind'], 'file'>, string>> = {
  link: 'a link',
  folder: 'a folder',
  device: 'a device',
  pipe: 'a named pipe',
  socket: 'a socket',
  other: 'not a regular file',
};

/** The `## ` headings of the task template, but its Self-check. */
export function taskSections(template: string): string[] {
  return sectionsOf(linesOf(template))
    .map((s) => s.heading.text)
    .filter((h) => headingKey(h) !== headingKey(SELF_CHECK_HEADING));
}

/** What is wrong with the file `name` beside the task index `index` (relative to the docs folder) that task `id` names. */
export function taskFileFindings(index: string, id: string, name: string, fact: TaskFile, template?: string): Finding[] {
  const file = `${index.slice(0, index.lastIndexOf('/') + 1)}${name}`;
  const own = `the task's own file, \`${name}\`, a regular file written from the task template`;
  const refuse = (message: string, write = own): Finding[] => [{ check: 'task-index', file, message: `task ${id}: ${message}`, write }];
  if (fact.kind !== 'file') return refuse(`${file} is ${KIND[fact.kind]}${fact.kind === 'link' && fact.target ? ` to ${fact.target}` : ''}`);
  if (fact.problem !== undefined) return refuse(`${file} cannot be read: ${fact.problem}`, 'a readable task file within the size limit');
  if (fact.text === undefined || fact.text.trim() === '') return refuse(`${file} is empty`);
  if (template === undefined) return [];
  const input = { output: { file, sections: taskSections(template), checks: [] }, file, text: fact.text, template, skill: 'decompose' };
  return [...sections(input), ...placeholders(input)].map((f) => ({ ...f, check: 'task-index', message: `task ${id}: ${f.message}` }));
}
