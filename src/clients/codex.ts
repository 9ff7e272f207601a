/**
 * Codex (docs/sessions.md, docs/codex-facts.md). `init` sets up the section
 * of `AGENTS.md`, the MCP server in `.codex/config.toml` (the agent's tools
 * that write approved), the exec policy `.codex/rules/autopilot.rules`,
 * and with `--hooks` `.codex/hooks.json` (Claude Code's format). Every shell
 * command it runs carries `$CODEX_THREAD_ID`, and every MCP call
 * `_meta.threadId`; its hooks are told by their transcript, a `rollout-…`
 * file. Its `config.toml` loads the TOML parser only where it is written or
 * judged (`codex-toml.ts`, a bundle of its own); the exec policy is written
 * here, with no parser.
 */
import { OPTION_COMMANDS, PERSON_COMMANDS, PERSON_OPTIONS, type Client, type Launch, type Token } from './client.js';
import { changed, oursRemoved, parseObject, withHooks, withoutHooks } from './config-files.js';
import { withAgentsSection, withoutAgentsSection } from './instructions.js';
import { oldCodexRules, oldRulesSteps, RULES_MARK } from './legacy.js';

/** Codex 0.169 cuts a SessionEnd hook's timeout to 3 s, and says so in every run of a project whose hooks ask for more. */
export const CODEX_SESSION_END_TIMEOUT_SECONDS = 3;

/** Codex's hooks file: the same format as Claude Code's, run from the folder Codex started in (it names no root); SessionEnd within Codex's limit. */
export function withCodexHooks(text: string | undefined, file: string, launch: Launch): string | undefined {
  return changed(
    text,
    withHooks(parseObject(text, file), file, (event) => launch.hook(event), { sessionEnd: CODEX_SESSION_END_TIMEOUT_SECONDS }),
  );
}

const token = (t: Token) => (typeof t === 'string' ? JSON.stringify(t) : `[${t.map((w) => JSON.stringify(w)).join(', ')}]`);

/**
 * The exec policy: each person-only command, and each person-only option
 * right after a command's name, asks first (in `codex exec`, which asks
 * nobody, it is refused), for every spelling of autopilot (`Launch.spellings`).
 * Codex matches a command's first words, each exactly or from a list, with no
 * wildcard (codex-rs/execpolicy, `PatternToken`); the command line refuses a
 * person's command with an option before its name, and a person's option
 * anywhere else (`cli/person-order.ts`), so these rules hold every line it
 * accepts.
 */
export function codexRules(launch: Launch): string {
  // `then`: the words after the spelling, as the file spells them (`COMMANDS` names the list above).
  const rule = (spelling: readonly Token[], then: readonly string[]) =>
    `prefix_rule(pattern=[${[...spelling.map(token), ...then].join(', ')}], decision="prompt")`;
  return [
    `${RULES_MARK} Written by \`autopilot init\`.`,
    "# autopilot refuses a person's command with an option before its name, and a person's option anywhere but right",
    "# after the command's name: so these first words (Codex matches each exactly) hold every line it runs.",
    `COMMANDS = ${token(OPTION_COMMANDS)}`,
    ...launch.spellings.flatMap((spelling) => [
      ...PERSON_COMMANDS.map((name) => rule(spelling, [JSON.stringify(name)])),
      ...PERSON_OPTIONS.map((option) => rule(spelling, ['COMMANDS', JSON.stringify(option)])),
    ]),
    '',
  ].join('\n');
}

/** A rules file autopilot wrote: this version's, or an older one's (`legacy.ts`). */
const rulesOf = (launch: Launch, text: string) => {
  const steps = oldRulesSteps(text);
  return steps === undefined ? codexRules(launch) : oldCodexRules(launch, steps);
};

export const codex: Client = {
  id: 'codex',
  name: 'Codex',
  processNames: ['codex'],
  folders: ['.codex/rules', '.codex'],
  hooksFile: '.codex/hooks.json',
  files(launch, { hooks }) {
    const rules = codexRules(launch);
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
        unmake: (t) => oursRemoved(rulesOf(launch, t), RULES_MARK)(t),
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
