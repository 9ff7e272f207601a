/** `autopilot init`: set a repository up for autopilot and its agents; safe to run again. */
import { runInit, type InitResult } from '../app/setup/init.js';
import { hookedClients } from '../clients/index.js';
import { EXIT } from '../errors.js';
import type { InitAnswer } from '../render/answers.js';
import { defineCommand } from './command.js';

/** The clients whose hooks `--hooks` adds, and the file each keeps them in (`src/clients/`). */
const HOOKED = hookedClients()
  .map((c) => `${c.name} (${c.file})`)
  .join(' and ');

const SAID = { created: '+', changed: '~', kept: '=' } as const;
const WHAT = { created: 'created', changed: "autopilot's part added", kept: 'as it was' } as const;

/** What init did, a line a file, then what to commit and what git ignores. */
export function initText(r: InitResult): string {
  const width = Math.max(...r.files.map((f) => f.path.length));
  const quote = (p: string) => (/^[\w./@-]+$/.test(p) ? p : `'${p.replaceAll("'", "'\\''")}'`);
  return [
    ...r.files.map((f) => `${SAID[f.action]} ${f.path.padEnd(width)}  ${WHAT[f.action]}`),
    ...r.warnings.map((w) => `! ${w}`),
    r.commit.length > 0
      ? `Commit:  git add ${r.commit.map(quote).join(' ')} && git commit -m "Set up autopilot"`
      : 'Commit:  nothing new (every file was already set up)',
    r.ignored.length > 0 ? `Ignored: ${r.ignored.join(' ')} (.gitignore)` : 'Ignored: nothing (.gitignore has none of autopilot’s lines)',
    testsSaid(r.verify),
    r.commits,
    r.pointer
      ? startedText(r.pointer, r.run, r.repository)
      : r.run
        ? `Run ${r.run}: already started, left as it stands. Run \`autopilot next\`, or \`/autopilot ${r.run}\` in your agent.`
        : 'Ready. Run `/autopilot` in your agent, or `autopilot next` here (`autopilot init --flow <id>` chooses the flow).',
  ].join('\n');
}

/** The run init started: where, what it reads of the repository's, and how an agent is told to drive it. */
function startedText(p: NonNullable<InitResult['pointer']>, run: string | undefined, repository: InitResult['repository']): string {
  const which = run ? `Run ${run}: started` : 'Started';
  const reads = repository
    ? ` Steps ${repository.steps[0]}–${repository.steps.at(-1)} are the repository's: it reads ${repository.read} (the default run's Document output).`
    : '';
  const agent = run ? `\`/autopilot ${run}\` in your agent (or AUTOPILOT_RUN=${run})` : '`/autopilot` in your agent';
  return `${which} ${p.flow} at step ${p.step}${run ? ` (${p.name})` : ''}.${reads} Run \`autopilot next\`, or ${agent}.`;
}

/** The line that says which command is the project's tests, and where it came from. */
function testsSaid(v: InitResult['verify']): string {
  if (v.command === null)
    return 'Tests:   none found yet; autopilot looks again when a step needs them, and where it still finds none, asks you to name them (`autopilot repin --verify "<command>"`).';
  if (v.command === 'none') return 'Tests:   none (`verify: none` in .autopilot/config.yml)';
  return v.foundIn === '.autopilot/config.yml'
    ? `Tests:   \`${v.command}\` (verify: in .autopilot/config.yml)`
    : `Tests:   \`${v.command}\` (found in ${v.foundIn}), written as verify: in .autopilot/config.yml; only a run of it counts as a report's test result`;
}

export const init = defineCommand({
  name: 'init',
  anyRun: true,
  summary: 'set a repository up: folders, git lines, the /autopilot command for agents',
  examples: [
    { line: 'autopilot init', does: 'set this repository up for autopilot and its agents' },
    { line: 'autopilot init --run login --flow greenfield', does: 'the same, and start a run named login on the greenfield flow at step 1' },
    { line: 'autopilot init --hooks', does: 'the same, with the SessionStart and SessionEnd hooks' },
  ],
  options: [
    { key: 'flow', flags: '--flow <id>', type: 'string', summary: 'also start this flow at step 1' },
    {
      key: 'hooks',
      flags: '--hooks',
      type: 'boolean',
      summary: `also add the SessionStart and SessionEnd hooks: ${HOOKED}`,
    },
  ],
  mcp: { omitted: 'it sets up the agent client that starts the MCP server: a person runs it once, at a shell' },
  run: (ctx, a: { flow?: string; hooks?: boolean }) => runInit(ctx, a.flow, { hooks: a.hooks === true }),
  view: (r) => {
    const json: InitAnswer = {
      files: r.files,
      created: r.created,
      changed: r.changed,
      kept: r.kept,
      commit: r.commit,
      ignored: r.ignored,
      warnings: r.warnings,
      pointer: r.pointer,
      run: r.run,
      repository: r.repository,
      commits: r.commits,
      verify: { command: r.verify.command, found_in: r.verify.foundIn },
    };
    return { json, text: initText(r), exit: EXIT.ok };
  },
});
