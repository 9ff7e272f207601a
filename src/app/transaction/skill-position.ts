/**
 * A skill may keep its own progress file, named in its SKILL.md front matter
 * (`state: { file, field }`; docs/flow-format.md, "A skill's own state").
 * Re-entry reads it, shows it as the sub-step, and says so when it disagrees
 * with the pointer (`engine/step-plan.ts`). The YAML reader is loaded only
 * for a skill that declares a state file.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import type { SkillState } from '../../engine/step-plan.js';
import type { Flow, Step } from '../../formats/flow/model.js';
import type { SkillStateFile } from '../../io/skill-state.js';
import type { Repo } from '../../io/repo.js';
import { skillFile } from '../../io/skills.js';
import { SKILL_HEAD_BYTES } from '../../limits.js';

/** The first bytes of a file: enough to see whether its front matter declares `state:`. */
function head(path: string, bytes = SKILL_HEAD_BYTES): string {
  const fd = openSync(path, 'r');
  try {
    const buffer = Buffer.alloc(bytes);
    return buffer.toString('utf8', 0, readSync(fd, buffer, 0, bytes, 0));
  } finally {
    closeSync(fd);
  }
}

/** Whether a skill's front matter declares `state:` (its first bytes only): most skills do not, and the YAML reader is not loaded for them. */
function declaresState(path: string): boolean {
  const text = head(path);
  const end = text.startsWith('---') ? text.indexOf('\n---', 3) : -1;
  return end >= 0 && /^state\s*:/m.test(text.slice(0, end));
}

/**
 * The state files the flow's skills declare (seed 002: a checkpoint holds the
 * skill's own state too), once each, in the flow's order, with their text
 * where the file exists.
 */
export async function skillStateFiles(repo: Repo, flow: Flow, cycle: number): Promise<SkillStateFile[]> {
  const skills = [...new Set(flow.steps.map((s) => s.skill))]
    .map((name) => skillFile(repo, name))
    .filter((skill) => skill.exists && !skill.problem && declaresState(skill.path));
  if (skills.length === 0) return [];
  const { skillStateFile } = await import('../../io/skill-state.js');
  const seen = new Set<string>();
  const out: SkillStateFile[] = [];
  for (const skill of skills) {
    const state = skillStateFile(repo, skill.path, cycle);
    if (!state || seen.has(state.file)) continue;
    seen.add(state.file);
    out.push(state);
  }
  return out;
}

export async function skillPosition(repo: Repo, step: Step, cycle: number): Promise<SkillState> {
  const skill = skillFile(repo, step.skill);
  if (!skill.exists || skill.problem) return undefined;
  if (!declaresState(skill.path)) return undefined;
  const { readSkillState } = await import('../../io/skill-state.js');
  const state = readSkillState(repo, skill.path, cycle);
  if (!state) return undefined;
  return 'problem' in state ? { problem: `${state.problem.file ? `${state.problem.file}: ` : ''}${state.problem.message}` } : state;
}
