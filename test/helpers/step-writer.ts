/**
 * What a scripted agent writes for a step (test/agents/whole-run.test.ts, test/agents/runs-claude.test.ts): the files a
 * work answer names (`write`, else `done_when`, a pattern's `*` made `01`), each with real sections taken from the step's
 * skill (one heading a sub-step, and the Markdown examples its Outputs give), or from the template the answer names. It
 * knows no list of step files: only autopilot's answer and the skill file it points to.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Answer, Written } from './agent-run.js';
import { namingCriteria } from './cli.js';
import { fillTemplate } from './templates.js';

/** The project the person described: one with screens (so Problem writes ui.md, and UI Design runs) or not. */
export interface Project {
  repo: string;
  ui: boolean;
  name: string;
}

/** The file paths (repository-relative) the agent writes for a work answer: `write` where autopilot names them, else each done_when entry, a pattern's `*` made `01`. */
export function filesToWrite(answer: Answer, counts: { named: number; derived: number }): string[] {
  const json = answer.json as { done_when?: string[]; write?: string[] };
  const doneWhen = json.done_when ?? [];
  const named = json.write ?? [];
  const files: string[] = [];
  for (const entry of doneWhen) {
    if (!entry.includes('*')) {
      files.push(entry);
      continue;
    }
    const prefix = entry.slice(0, entry.indexOf('*'));
    const fromAnswer = named.find((path) => path.startsWith(prefix));
    if (fromAnswer) counts.named++;
    else counts.derived++;
    files.push(fromAnswer ?? entry.replace(/\*/g, '01'));
  }
  for (const path of named) if (!files.includes(path)) files.push(path);
  return files;
}

/** The skill's sub-step names (`1. **Interview.** …` → Interview). */
function subSteps(skill: string): string[] {
  const section = /## Sub-steps\n([\s\S]*?)\n## /.exec(skill)?.[1] ?? '';
  return [...section.matchAll(/^\d+\. \*\*([^*]+?)\.?\*\*/gm)].map((m) => m[1]!);
}

/** The skill's Outputs section. */
const outputsOf = (skill: string) => /## Outputs\n([\s\S]*?)\n## (?!#)/.exec(skill)?.[1] ?? '';

/** The Markdown examples of the skill's Outputs (a task table, say): written as the skill shows them. */
function examples(skill: string): string[] {
  return [...outputsOf(skill).matchAll(/```markdown\n([\s\S]*?)```/g)].map((m) => m[1]!.trim());
}

/** Files the skill's Outputs ask for beyond done_when, under a condition the agent can judge: only `ui.md`, "only when the project has a user interface". */
function conditionalOutputs(skill: string, docs: string, project: Project): string[] {
  const out: string[] = [];
  for (const line of outputsOf(skill).split('\n')) {
    const path = /^- `([^`]+\.md)`: \*\*only\*\* when the project has a user interface/.exec(line)?.[1];
    if (path && project.ui) out.push(`${docs}/${path}`);
  }
  return out;
}

const titleOf = (path: string) => {
  const base = path.split('/').at(-1)!.replace(/\.md$/, '').replace(/^_/, '').replace(/_/g, ' ');
  return base.charAt(0).toUpperCase() + base.slice(1);
};

/** A document with real sections: a title, what it is about, one section a sub-step of the skill, the skill's examples. */
function documentFor(path: string, skill: string, stepName: string, project: Project): string {
  const lines = [`# ${titleOf(path)}`, '', `${stepName} for ${project.name}: what this step settled, in the words of the person who asked for it.`, ''];
  for (const name of subSteps(skill)) {
    lines.push(`## ${name}`, '', `${name} for ${project.name}: what was found, what was decided and why, and what stays open.`, '');
  }
  for (const example of examples(skill)) lines.push(example, '');
  return `${lines.join('\n').trimEnd()}\n`;
}

/** What the agent writes for a work answer (start, resume or retry): the files not there yet. */
export function workFor(answer: Answer, project: Project, counts: { named: number; derived: number }): Written[] {
  const json = answer.json as {
    skill: string;
    name: string;
    done_when: string[];
    templates?: { file: string; template: string }[];
    batch?: { report: string; tasks: { id: string; name: string }[] };
  };
  const skill = readFileSync(join(project.repo, json.skill), 'utf8');
  // The run's docs folder (`_docs`, or a named run's `_docs/_runs/NAME`): what comes before the step's own folder.
  const docs = /^(.*?)\/\d\d_/.exec(json.done_when[0]!)?.[1] ?? json.done_when[0]!.split('/')[0]!;
  // Inside Implement the answer hands out a batch: its report is written first, from the template named for it.
  const paths = [...(json.batch ? [json.batch.report] : []), ...filesToWrite(answer, counts), ...conditionalOutputs(skill, docs, project)];
  // A file the answer names a template for is written from it (every {{ … }} filled, every box ticked), naming each
  // acceptance criterion the problem step wrote; a task index gets its first task file beside it.
  const fromTemplate = (path: string): string | undefined => {
    const named = json.templates?.find((t) => new RegExp(`^${t.file.replace(/[.]/g, '\\.').replace(/\*/g, '[^/]*')}$`).test(path));
    if (!named) return undefined;
    const at = (rel: string) => (rel.startsWith('/') ? rel : join(project.repo, rel));
    return namingCriteria(project.repo, path, fillTemplate(readFileSync(at(named.template), 'utf8'), path));
  };
  const out: Written[] = [];
  // A batch's tasks become code, each with its test: the project's tests grow with each batch.
  for (const task of json.batch?.tasks ?? []) {
    const name = `task_${task.id.replace(/\W/g, '_')}`;
    out.push({ path: `src/${name}.js`, text: `// ${task.name}\nexports.${name} = () => '${task.id}';\n` });
    out.push({
      path: `test/${name}.test.js`,
      text: `const test = require('node:test');\nconst assert = require('node:assert');\nconst { ${name} } = require('../src/${name}.js');\n\ntest('${name} gives its id', () => assert.equal(${name}(), '${task.id}'));\n`,
    });
  }
  for (const path of paths.filter((p) => !existsSync(join(project.repo, p)))) {
    const text = fromTemplate(path);
    out.push({ path, text: text ?? documentFor(path, skill, json.name, project) });
    const index = json.templates?.find((t) => path.endsWith('/_index.md') && t.file === path);
    if (text && index) {
      const task = join(dirname(index.template), 'task.md');
      out.push({
        path: path.replace(/_index\.md$/, '01_first_task.md'),
        text: fillTemplate(readFileSync(index.template.startsWith('/') ? task : join(project.repo, task), 'utf8'), 'task'),
      });
    }
  }
  return out;
}
