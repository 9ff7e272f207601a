/**
 * Codex (docs/sessions.md, docs/codex-facts.md). `init` sets up the section
 * of `AGENTS.md`, the MCP server in `.codex/config.toml` (its tools that only
 * a person runs set to ask), the exec policy `.codex/rules/autopilot.rules`,
 * and with `--hooks` `.codex/hooks.json` (Claude Code's format). Every shell
 * command it runs carries `$CODEX_THREAD_ID`, and every MCP call
 * `_meta.threadId`; its hooks are told by their transcript, a `rollout-…`
 * file. Its `config.toml` loads the TOML parser only where it is written or
 * judged (`codex-toml.ts`, a bundle of its own); the exec policy is written
 * here, with no parser.
 */
import { CODEX_SESSION_END_TIMEOUT_SECONDS } from '../limits.js';
import { AGENT_WRITE_TOOLS, PERSON_COMMANDS, PERSON_OPTIONS, type Client, type Launch } from './client.js';
import { changed, oursRemoved, parseObject, withHooks, withoutHooks } from './config-files.js';
import { withAgentsSection, withoutAgentsSection } from './instructions.js';

/** Codex's hooks file: the same format as Claude Code's, run from the folder Codex started in; SessionEnd within Codex's limit. */
export function withCodexHooks(text: string | undefined, file: string, launch: Launch): string | undefined {
  return changed(text, withHooks(parseObject(text, file), file, launch.codexHook, { sessionEnd: CODEX_SESSION_END_TIMEOUT_SECONDS }));
}

/**
 * The words a person-only option may follow where an agent types it: a
 * command's name, an option that takes no value, `--step` and its number
 * (`done --step 3 --json --force`). Codex's exec policy matches a command's
 * first words, each exactly or from a list of alternatives, with no wildcard
 * (codex-rs/execpolicy, `PatternToken`): the step numbers are listed, from 1
 * to the most steps a flow of the repository has (`autopilot check` says when
 * a flow outgrows them). After free text or another option's value
 * (`substep "…" --force`, `--session s --take-over`) the option is not
 * caught; the texts never spell it so (docs/sessions.md).
 */
const beforeOption = (steps: number) => [
  ...AGENT_WRITE_TOOLS,
  ...PERSON_COMMANDS,
  'status',
  '--json',
  '--commit',
  ...PERSON_OPTIONS,
  '--step',
  ...Array.from({ length: Math.max(1, steps) }, (_, i) => String(i + 1)),
];
/** The first words of the exec policy autopilot writes. */
const RULES_MARK = '# autopilot: what only a person decides asks first.';

/** How many such words a person-only option is caught after. */
const OPTION_DEPTH = 4;

/** The exec policy: each person-only command, and each person-only option among the first words, asks first (in `codex exec`, which asks nobody, it is refused). */
export function codexRules(launch: Launch, steps: number): string {
  const words = launch.words.map((w) => JSON.stringify(w));
  const rule = (pattern: string[]) => `prefix_rule(pattern=[${[...words, ...pattern].join(', ')}], decision="prompt")`;
  const rules = [
    ...PERSON_COMMANDS.map((name) => rule([JSON.stringify(name)])),
    ...PERSON_OPTIONS.flatMap((option) =>
      Array.from({ length: OPTION_DEPTH + 1 }, (_, depth) => rule([...Array<string>(depth).fill('BEFORE'), JSON.stringify(option)])),
    ),
  ];
  return [
    `${RULES_MARK} Written by \`autopilot init\`.`,
    '# BEFORE: the words a person-only option is caught after: a command, an option without a value, --step and its number.',
    `# Codex matches each word exactly (no wildcard): the numbers are the steps of the flows here, 1 to ${Math.max(1, steps)}.`,
    `BEFORE = [${beforeOption(steps)
      .map((w) => JSON.stringify(w))
      .join(', ')}]`,
    ...rules,
    '',
  ].join('\n');
}

/** The highest step number a rules file of ours lists (it was written for the flows of its day). */
const stepsListed = (text: string) => {
  const numbers = /^BEFORE = \[.*"--step", ((?:"\d+", )*"\d+")\]$/m.exec(text)?.[1];
  return numbers === undefined ? undefined : numbers.split(', ').length;
};

export const codex: Client = {
  id: 'codex',
  name: 'Codex',
  files(launch, { hooks, steps }) {
    const rules = codexRules(launch, steps);
    return [
      { path: 'AGENTS.md', make: (t) => withAgentsSection(t, launch), unmake: withoutAgentsSection },
      // The TOML parser is loaded only for this file.
      {
        path: '.codex/config.toml',
        make: async (t) => (await import('./codex-toml.js')).withCodexServer(t, '.codex/config.toml', launch),
        unmake: async (t) => (await import('./codex-toml.js')).withoutCodexServer(t, launch),
      },
      {
        path: '.codex/rules/autopilot.rules',
        make: (t) => (t === rules ? undefined : rules),
        unmake: (t) => oursRemoved(codexRules(launch, stepsListed(t) ?? steps), RULES_MARK)(t),
      },
      ...(hooks
        ? [
            {
              path: '.codex/hooks.json',
              make: (t: string | undefined) => withCodexHooks(t, '.codex/hooks.json', launch),
              unmake: (t: string) => withoutHooks(t, '.codex/hooks.json'),
            },
          ]
        : []),
    ];
  },
  sessionEnv: ['CODEX_THREAD_ID'],
  // With `sandbox_mode = "workspace-write"` on Linux its shell commands run in a PID namespace of their own.
  commandEnv: ['CODEX_THREAD_ID'],
  mcpMeta: ['threadId'],
  ranHook: (fields) => typeof fields.raw.transcript_path === 'string' && fields.raw.transcript_path.includes('rollout-'),
  instructions: 'the Autopilot section of AGENTS.md',
};
