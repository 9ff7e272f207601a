/**
 * Codex (docs/sessions.md, docs/codex-facts.md). `init` sets up the section
 * of `AGENTS.md`, the MCP server in `.codex/config.toml` (its tools that only
 * a person runs set to ask), the exec policy `.codex/rules/autopilot.rules`,
 * and with `--hooks` `.codex/hooks.json` (Claude Code's format). Every shell
 * command it runs carries `$CODEX_THREAD_ID`, and every MCP call
 * `_meta.threadId`; its hooks are told by their transcript, a `rollout-…`
 * file. Its TOML files load their parser only in `init` (`codex-toml.ts`, a
 * bundle of its own).
 */
import { CODEX_SESSION_END_TIMEOUT_SECONDS } from '../limits.js';
import type { Client, Launch } from './client.js';
import { changed, parseObject, withHooks } from './config-files.js';
import { withAgentsSection } from './instructions.js';

/** Codex's hooks file: the same format as Claude Code's, run from the folder Codex started in; SessionEnd within Codex's limit. */
export function withCodexHooks(text: string | undefined, file: string, launch: Launch): string | undefined {
  return changed(text, withHooks(parseObject(text, file), file, launch.codexHook, { sessionEnd: CODEX_SESSION_END_TIMEOUT_SECONDS }));
}

export const codex: Client = {
  id: 'codex',
  name: 'Codex',
  async files(launch, { hooks }) {
    const { codexRules, withCodexServer } = await import('./codex-toml.js');
    const rules = codexRules(launch);
    return [
      { path: 'AGENTS.md', make: (t) => withAgentsSection(t, launch) },
      { path: '.codex/config.toml', make: (t) => withCodexServer(t, '.codex/config.toml', launch) },
      { path: '.codex/rules/autopilot.rules', make: (t) => (t === rules ? undefined : rules) },
      ...(hooks ? [{ path: '.codex/hooks.json', make: (t: string | undefined) => withCodexHooks(t, '.codex/hooks.json', launch) }] : []),
    ];
  },
  sessionEnv: ['CODEX_THREAD_ID'],
  // With `sandbox_mode = "workspace-write"` on Linux its shell commands run in a PID namespace of their own.
  commandEnv: ['CODEX_THREAD_ID'],
  mcpMeta: ['threadId'],
  ranHook: (fields) => typeof fields.raw.transcript_path === 'string' && fields.raw.transcript_path.includes('rollout-'),
  instructions: 'the Autopilot section of AGENTS.md',
};
