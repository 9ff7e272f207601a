/** A skill's own progress file, read from real folders: the declaration in SKILL.md, then the JSON it names. */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readSkillState } from '../../../src/io/skill-state.js';
import { openRepo, type Repo } from '../../../src/io/repo.js';

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'autopilot-skill-state-'));
  made.push(dir);
  return dir;
}

function put(dir: string, rel: string, text: string): string {
  const path = join(dir, rel);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  return path;
}

/** A repository with its own skill `name` whose front matter holds `front`; returns the repo and the skill's path. */
function repoWithSkill(front: string, name = 'document'): { repo: Repo; skill: string } {
  const dir = tempDir();
  mkdirSync(join(dir, '.git'));
  const skill = put(dir, `.autopilot/skills/${name}/SKILL.md`, `---\nname: ${name}\ndescription: A skill.\n${front}\n---\n\n# ${name}\n`);
  return { repo: openRepo({ dir }), skill };
}

const DECLARED = 'state: { file: 02_document/state.json, field: position }';

describe('readSkillState', () => {
  it('reads the position the skill recorded, and names the file from the repository root', () => {
    const { repo, skill } = repoWithSkill(DECLARED);
    put(repo.root, '_docs/02_document/state.json', JSON.stringify({ position: '3 — Components', modules_done: ['src/api'] }));
    expect(readSkillState(repo, skill, 1)).toEqual({ file: '_docs/02_document/state.json', position: '3 — Components' });
  });

  it('is undefined when the skill declares no state, or its file does not exist yet', () => {
    const plain = repoWithSkill('');
    expect(readSkillState(plain.repo, plain.skill, 1)).toBeUndefined();
    const declared = repoWithSkill(DECLARED);
    expect(readSkillState(declared.repo, declared.skill, 1)).toBeUndefined();
    expect(readSkillState(declared.repo, join(declared.repo.root, 'no-such-skill.md'), 1)).toBeUndefined();
  });

  it('fills in `{cycle}`, follows a dotted field, and takes a number as a position', () => {
    const { repo, skill } = repoWithSkill('state:\n  file: 03_implementation/cycle-{cycle}/progress.json\n  field: progress.step');
    put(repo.root, '_docs/03_implementation/cycle-2/progress.json', '{"progress": {"step": 4, "batch": 2}}');
    expect(readSkillState(repo, skill, 1)).toBeUndefined();
    expect(readSkillState(repo, skill, 2)).toEqual({ file: '_docs/03_implementation/cycle-2/progress.json', position: '4' });
  });

  it('reads the docs folder the repository was opened with', () => {
    const dir = tempDir();
    mkdirSync(join(dir, '.git'));
    const skill = put(dir, '.autopilot/skills/document/SKILL.md', `---\n${DECLARED}\n---\n`);
    put(dir, 'notes/02_document/state.json', '{"position": "2 — Modules"}');
    expect(readSkillState(openRepo({ dir, docs: 'notes' }), skill, 1)).toEqual({ file: 'notes/02_document/state.json', position: '2 — Modules' });
  });

  it('names the line of a JSON syntax error', () => {
    const { repo, skill } = repoWithSkill(DECLARED);
    put(repo.root, '_docs/02_document/state.json', '{\n  "position": "3 — Components",\n  "modules_done": [],\n}\n');
    const result = readSkillState(repo, skill, 1);
    expect(result).toMatchObject({ problem: { file: '_docs/02_document/state.json', message: 'the skill state file is not valid JSON' } });
    expect((result as { problem: { line?: number } }).problem.line).toBe(4);
  });

  it.each([
    ['{"step": "3 — Components"}', 'the skill state file has no `position`'],
    ['["position"]', 'the skill state file has no `position`'],
    ['{"position": ""}', "the skill state's `position` is not a sub-step"],
    ['{"position": null}', "the skill state's `position` is not a sub-step"],
    ['{"position": {"n": 3}}', "the skill state's `position` is not a sub-step"],
    ['{"position": "3 — Components\\nstatus: completed"}', "the skill state's `position` is not a sub-step"],
    ['{"position": "3 \u2028 x"}', "the skill state's `position` is not a sub-step"],
    [`{"position": "${'x'.repeat(201)}"}`, "the skill state's `position` is not a sub-step"],
  ])('refuses the state %s', (json, message) => {
    const { repo, skill } = repoWithSkill(DECLARED);
    put(repo.root, '_docs/02_document/state.json', json);
    expect(readSkillState(repo, skill, 1)).toMatchObject({ problem: { file: '_docs/02_document/state.json', message } });
  });

  it('never reads a field through the object prototype', () => {
    for (const field of ['constructor', 'toString', '__proto__', 'position.length']) {
      const { repo, skill } = repoWithSkill(`state: { file: 02_document/state.json, field: ${field} }`);
      put(repo.root, '_docs/02_document/state.json', '{"position": "3 — Components"}');
      expect(readSkillState(repo, skill, 1)).toMatchObject({ problem: { message: `the skill state file has no \`${field}\`` } });
    }
  });

  it('refuses a state file that is a folder or too large', () => {
    const folder = repoWithSkill(DECLARED);
    mkdirSync(join(folder.repo.docs, '02_document/state.json'), { recursive: true });
    expect(readSkillState(folder.repo, folder.skill, 1)).toMatchObject({ problem: { message: 'this should be a file', received: 'a folder' } });
    const large = repoWithSkill(DECLARED);
    put(large.repo.root, '_docs/02_document/state.json', `{"position": "1", "pad": "${'x'.repeat(300 * 1024)}"}`);
    expect(readSkillState(large.repo, large.skill, 1)).toMatchObject({ problem: { message: 'the file is too large (301 KB)' } });
  });

  it('refuses a state file that a symlink leads out of the docs folder', () => {
    const { repo, skill } = repoWithSkill(DECLARED);
    const outside = tempDir();
    put(outside, 'state.json', '{"position": "secret"}');
    mkdirSync(repo.docs);
    symlinkSync(outside, join(repo.docs, '02_document'));
    expect(readSkillState(repo, skill, 1)).toMatchObject({
      problem: { file: '_docs/02_document/state.json', message: expect.stringContaining('leads outside the docs folder') },
    });
  });

  it('turns a broken SKILL.md into a problem with its line', () => {
    const { repo, skill } = repoWithSkill('state: { file: 02_document/state.json, field: [position }');
    expect(readSkillState(repo, skill, 1)).toMatchObject({
      problem: { file: '.autopilot/skills/document/SKILL.md', line: 4, message: 'the front matter is not valid YAML' },
    });
  });
});
