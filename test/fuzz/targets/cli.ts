/**
 * The built CLI (`status` or `check`) on a temporary repository whose own
 * flow is a mutated flow file and whose skill files are mutated SKILL.md
 * files, sometimes over the size limit or not files at all, sometimes beside
 * a damaged flow cache. One process per case.
 */
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cacheKey, FLOW_CACHE_FORMAT } from '../../../src/formats/flow-cache.js';
import { PARSER_FAILED } from '../../../src/formats/flow/parse-flow.js';
import { hashText } from '../../../src/hash.js';
import { packageRoot } from '../../../src/io/package-root.js';
import { SKILL_MAX_BYTES } from '../../../src/limits.js';
import type { Target, Verdict } from '../harness.js';
import { mutate } from '../mutate.js';
import type { Rng } from '../rng.js';
import { flowInput } from './flow-input.js';

const BIN = join(packageRoot(), 'bin', 'autopilot.js');
const TIMEOUT_MS = 10_000;
const SKILLS = ['problem', 'research', 'plan', 'decompose', 'implement', 'deploy'];
const ODD_NAMES = ['My_Flow', 'UPPER', '-dash', 'a b', 'x'.repeat(65), '', 'ok.v2', 'émoji'];

interface CliInput {
  dir: string;
  command: 'status' | 'check';
  notes: string[];
}

function skillText(r: Rng, name: string): string {
  const text = readFileSync(join(packageRoot(), 'skills', name, 'SKILL.md'), 'utf8');
  if (r.chance(0.1)) return text.repeat(Math.ceil((SKILL_MAX_BYTES + 1) / text.length) + r.int(3));
  return mutate(text, r).text;
}

/** A flow cache beside the flow: garbage, or the right key with a damaged entry. */
function damagedCache(r: Rng, id: string, text: string): string {
  const entries = [
    { flow: { steps: 3 } },
    { flow: null },
    { problems: 'x' },
    { problems: [{}] },
    { problems: [] },
    { flow: { id, title: 't', scanOrder: 1, detect: { any: [], none: [] }, steps: [], decisions: {}, hash: 'h' } },
    { flow: { id, title: 't', scanOrder: 1, detect: { any: 'x', none: null }, steps: [{ number: 1 }], decisions: 3, hash: 'h' } },
    'entry',
    42,
  ];
  if (r.chance(0.3)) return r.pick(['', '{', 'null', '[]', '{"format":2}', '{"format":2,"entries":[]}', '{"format":2,"entries":null}']);
  return JSON.stringify({ format: FLOW_CACHE_FORMAT, entries: { [cacheKey(id, hashText(text))]: r.pick(entries) } });
}

function generate(r: Rng): CliInput {
  const dir = mkdtempSync(join(tmpdir(), 'autopilot-fuzz-repo-'));
  const notes: string[] = [];
  const id = r.chance(0.5) ? 'greenfield' : r.chance(0.8) ? 'fuzzed' : r.pick(ODD_NAMES);
  const flow = flowInput(r, id);
  notes.push(`flow ${id}.md: ${flow.applied.join(', ') || 'unchanged'}`);
  mkdirSync(join(dir, '.autopilot', 'flows'), { recursive: true });
  writeFileSync(join(dir, '.autopilot', 'flows', `${id}.md`), flow.text);
  for (const name of new Set(Array.from({ length: r.int(4) }, () => r.pick(SKILLS)))) {
    const skillDir = join(dir, '.autopilot', 'skills', name);
    mkdirSync(skillDir, { recursive: true });
    if (r.chance(0.05)) {
      mkdirSync(join(skillDir, 'SKILL.md'), { recursive: true });
      notes.push(`skill ${name}: a folder`);
    } else {
      writeFileSync(join(skillDir, 'SKILL.md'), skillText(r, name));
      notes.push(`skill ${name}`);
    }
  }
  if (r.chance(0.1)) {
    mkdirSync(join(dir, '_docs', '_autopilot', 'cache'), { recursive: true });
    writeFileSync(join(dir, '_docs', '_autopilot', 'cache', 'flows.json'), damagedCache(r, id, flow.text));
    notes.push('a damaged flow cache');
  }
  if (r.chance(0.3)) writeFileSync(join(dir, 'package.json'), '{}');
  return { dir, command: r.chance(0.5) ? 'status' : 'check', notes };
}

function run(input: CliInput): Promise<Verdict> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, '-C', input.dir, input.command], {
      env: { ...process.env, AUTOPILOT_SESSION: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: TIMEOUT_MS,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (code, signal) => {
      // `check` lists its problems on stdout; other commands print errors on stderr. Success prints nothing on stderr.
      const output = stdout + stderr;
      const clean = output.trim() !== '' && !output.includes('internal error') && !output.includes(PARSER_FAILED);
      // Timed out: the runner sees the time and counts the case as slow.
      if (signal === 'SIGTERM') resolve({ kind: 'refused' });
      else if (code === 0 && stderr === '') resolve({ kind: 'accepted' });
      else if (code === 2 && clean) resolve({ kind: 'refused' });
      else resolve({ kind: 'crash', detail: `${input.command} exited ${code ?? signal}: ${output.slice(0, 2000)}` });
    });
  });
}

export const cliTarget: Target<CliInput> = {
  name: 'cli',
  share: 0.05,
  concurrency: 2,
  generate,
  run,
  save: (input, dir) => {
    cpSync(input.dir, join(dir, 'repo'), { recursive: true });
    writeFileSync(join(dir, 'README.txt'), `autopilot -C repo ${input.command}\n${input.notes.join('\n')}\n`);
    return join(dir, 'repo');
  },
  dispose: (input) => rmSync(input.dir, { recursive: true, force: true }),
};
