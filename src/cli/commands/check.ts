/** `autopilot check`: every flow, every skill a flow names, the pointer and the journal; every problem, not the first. */
import { InputError, type Problem } from '../../errors.js';
import { readJournal } from '../../io/journal.js';
import { loadFlows } from '../../io/load-flows.js';
import { displayPath, openRepo, type RepoOptions } from '../../io/repo.js';
import { skillFile, type SkillFile } from '../../io/skills.js';
import { flowOfPointer, readPointer } from '../load-state.js';

export interface CheckResult {
  problems: Problem[];
  flows: string[];
  skills: number;
  pointer: 'ok' | 'absent' | 'invalid';
  journalEvents: number;
}

export async function runCheck(options: RepoOptions): Promise<CheckResult> {
  const repo = openRepo(options);
  const { flows, problems } = await loadFlows(repo, { writeCache: false });

  const skills = new Map<string, SkillFile>();
  for (const flow of flows) {
    for (const step of flow.steps) {
      let skill = skills.get(step.skill);
      if (!skill) {
        skill = skillFile(repo, step.skill);
        skills.set(step.skill, skill);
        // A file too large (or not a file) is one problem, however many steps name it.
        if (skill.problem) problems.push(skill.problem);
      }
      if (!skill.exists) {
        problems.push({
          file: flow.file,
          line: step.line,
          message: `step ${step.number} (${step.name}) names the skill \`${step.skill}\`, which has no SKILL.md`,
          expected: `a file ${displayPath(skill.path, repo.root)} or .autopilot/skills/${step.skill}/SKILL.md`,
          received: 'no such file',
        });
      }
    }
  }

  let pointer: CheckResult['pointer'] = 'absent';
  try {
    const parsed = readPointer(repo);
    if (parsed) {
      flowOfPointer(repo, flows, parsed);
      pointer = 'ok';
    }
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    pointer = 'invalid';
    problems.push(...error.problems);
  }

  const journal = readJournal(repo.journalFile, displayPath(repo.journalFile, repo.root));
  problems.push(...journal.problems);
  return { problems, flows: flows.map((f) => f.id), skills: skills.size, pointer, journalEvents: journal.entries.length };
}
