/**
 * What an older `init` wrote that this one no longer does, spelled as it was
 * then: `uninstall` still recognises it (and takes it out), and `init` puts
 * this version's in its place. Frozen: these lists are what the files hold,
 * not what the registry says today.
 *
 * Before person-only commands left the MCP tool list (rule 10), `init` asked
 * Claude Code to ask before their tools, and set them to `approval_mode =
 * "prompt"` in Codex's config; and Codex's exec policy caught a person's
 * option after up to four listed words (`BEFORE`), with the step numbers of
 * the repository's flows.
 */
import type { Launch } from './client.js';

/** The person's commands as tools, in `.claude/settings.json`'s ask rules and `.codex/config.toml`'s tool table. */
export const OLD_PERSON_TOOLS = ['decide', 'ack', 'repin', 'restore', 'reset'] as const;
const OLD_WRITE_TOOLS = ['next', 'substep', 'done', 'fail', 'skip', 'breadcrumb', 'report', 'lease', 'checkpoint'] as const;
const OLD_OPTIONS = ['--force', '--accept-failures', '--take-over'] as const;

/** Claude Code's ask rules for the person's MCP tools. */
export const OLD_CLAUDE_ASK: readonly string[] = OLD_PERSON_TOOLS.map((name) => `mcp__autopilot__${name}`);

/** The tools of autopilot's server in `.codex/config.toml`, as the older `init` approved and prompted them. */
export const OLD_CODEX_TOOLS: Record<string, { approval_mode: string }> = Object.fromEntries([
  ...OLD_WRITE_TOOLS.map((name) => [name, { approval_mode: 'approve' }]),
  ...OLD_PERSON_TOOLS.map((name) => [name, { approval_mode: 'prompt' }]),
]);

/** The first line of the exec policy, then as now. */
export const RULES_MARK = '# autopilot: what only a person decides asks first.';

/** The exec policy as the older `init` wrote it for `steps` step numbers. */
export function oldCodexRules(launch: Launch, steps: number): string {
  const words = launch.words.map((w) => JSON.stringify(w));
  const rule = (pattern: string[]) => `prefix_rule(pattern=[${[...words, ...pattern].join(', ')}], decision="prompt")`;
  const before = [...OLD_WRITE_TOOLS, ...OLD_PERSON_TOOLS, 'status', '--json', '--commit', ...OLD_OPTIONS, '--step'];
  const numbers = Array.from({ length: Math.max(1, steps) }, (_, i) => String(i + 1));
  return [
    `${RULES_MARK} Written by \`autopilot init\`.`,
    '# BEFORE: the words a person-only option is caught after: a command, an option without a value, --step and its number.',
    `# Codex matches each word exactly (no wildcard): the numbers are the steps of the flows here, 1 to ${Math.max(1, steps)}.`,
    `BEFORE = [${[...before, ...numbers].map((w) => JSON.stringify(w)).join(', ')}]`,
    ...OLD_PERSON_TOOLS.map((name) => rule([JSON.stringify(name)])),
    ...OLD_OPTIONS.flatMap((option) => Array.from({ length: 5 }, (_, depth) => rule([...Array<string>(depth).fill('BEFORE'), JSON.stringify(option)]))),
    '',
  ].join('\n');
}

/** The step numbers an older exec policy lists (it was written for the flows of its day); undefined when it is not one. */
export function oldRulesSteps(text: string): number | undefined {
  const numbers = /^BEFORE = \[.*"--step", ((?:"\d+", )*"\d+")\]$/m.exec(text)?.[1];
  return numbers === undefined ? undefined : numbers.split(', ').length;
}
