/**
 * One agent client (Claude Code, Codex, Cursor, and the agents autopilot only
 * recognises) as autopilot meets it: the names its process runs under, the
 * files and folders `init` sets up for it, the ids it gives a conversation,
 * how its hooks are told apart and what they may cost. Each client is one
 * file of this folder behind this interface, listed in `index.ts`; `init`,
 * `check`, `uninstall`, the sweep after a commit, the session's name
 * (`app/transaction/context.ts`), the conversation's process (`io/conversation.ts`), the
 * MCP server and the hooks iterate that list (docs/sessions.md). Adding a
 * client is one file and one line there; nothing outside this folder names
 * one.
 *
 * Below `app` and `io`: no state, no repository, only the client's own words.
 */

/** How every installed text calls the command line where autopilot is installed in the project. */
export const AGENT_BIN = 'node_modules/.bin/autopilot';
/** The package's name on npm, and its binary's: what a package runner is given (`npx autopilot`, `npx md-autopilot`). */
export const PACKAGE_NAMES = ['autopilot', 'md-autopilot'] as const;

/** What only a person decides (rule 10): the commands, and the options of any command. Kept equal to the registry's `person` marks (tested). */
export const PERSON_COMMANDS = ['decide', 'ack', 'adopt', 'repin', 'restore', 'reset'] as const;
export const PERSON_OPTIONS = ['--force', '--accept-failures', '--take-over'] as const;
/** The MCP tools an agent runs that write (the rest only read; a person's command is never a tool). Kept equal to the registry (tested). */
export const AGENT_WRITE_TOOLS = ['next', 'substep', 'done', 'fail', 'skip', 'breadcrumb', 'report', 'lease', 'checkpoint'] as const;
/** The commands a person's option may follow (every command that takes one is among them: tested). */
export const OPTION_COMMANDS: readonly string[] = [...AGENT_WRITE_TOOLS, ...PERSON_COMMANDS];

/** One word of a command line as Codex's exec policy matches it: exactly, or one of a list. */
export type Token = string | readonly string[];

/** How a client starts autopilot: its command line, its MCP server, its hooks (`launch.ts`). */
export interface Launch {
  /** The command line as texts and permission rules spell it, and as its words. */
  bin: string;
  words: string[];
  /**
   * Every first few words an agent may call this autopilot by, as exec-policy
   * tokens: the words above, the same binary spelled otherwise, and the
   * package runners (`npx autopilot`, `npx --no md-autopilot`, `npm exec …`).
   */
  spellings: readonly (readonly Token[])[];
  /** The MCP server, started from whatever folder of the project the client runs in. */
  mcp: { command: string; args: string[] };
  /**
   * A hook's command line (`hook session-start`): from the project's root
   * where the client names it to its hooks in the environment variable
   * `rootEnv`, else from the nearest installed binary above the folder the
   * hook runs in.
   */
  hook: (event: string, rootEnv?: string) => string;
}

/**
 * What `uninstall` does to one file: nothing of autopilot's is in it; its
 * text without autopilot's part; removed (it held only what autopilot
 * wrote); or left, changed since autopilot wrote it (`why`).
 */
export type Removal = { kind: 'none' } | { kind: 'edit'; text: string } | { kind: 'remove' } | { kind: 'changed'; why: string };

/**
 * One file `init` sets up: its path from the repository's root, its new text
 * from the old one (undefined: it already says what autopilot needs), and
 * what `uninstall` makes of it: `unmake` takes out exactly what `make` put in.
 */
export interface SetupFile {
  path: string;
  make: (text: string | undefined) => string | undefined | Promise<string | undefined>;
  unmake: (text: string) => Removal | Promise<Removal>;
}

/** What a hook's JSON on stdin says, as far as it could be read: the raw id (the caller checks it as a session name), the start's source. */
export interface HookFields {
  id?: string;
  /** `startup` for a new conversation; `resume` for a resumed, continued or forked one. */
  source?: string;
  /** The rest of the input, for a client that reads more. */
  raw: Record<string, unknown>;
}

/** `hooks`: `init --hooks`. */
export interface SetupOptions {
  hooks: boolean;
}

export interface Client {
  /** autopilot's name for it: `claude-code`, `codex`, `cursor`. */
  id: string;
  /** Its name for a person. */
  name: string;
  /**
   * The names its process runs under (`claude`; run as a script, `claude.js`
   * too): a command line call with such a process above it belongs to that
   * conversation (`io/conversation.ts`).
   */
  processNames: readonly string[];
  /** Every file `init` sets up for it. A file's `make` may load a parser of its own (Codex's TOML). */
  files(launch: Launch, options: SetupOptions): SetupFile[];
  /** The folders of its own those files go in, deepest first: swept for what a kill left, and removed by `uninstall` where empty. */
  folders: readonly string[];
  /** The file its SessionStart and SessionEnd hooks go in (`init --hooks`), where it runs them. */
  hooksFile?: string;
  /** The environment variables naming the conversation in every shell command it runs, in order. */
  sessionEnv: readonly string[];
  /**
   * The environment variables it sets in every shell command it runs: such a
   * command has the client above it, or runs in a sandbox that hides it
   * (Codex's PID namespace on Linux, docs/sessions.md).
   */
  commandEnv: readonly string[];
  /** The keys of an MCP call's `_meta` that name the conversation, in order. */
  mcpMeta: readonly string[];
  /** Whether it ran this hook, from the hook's input and environment. */
  ranHook(fields: HookFields, env: NodeJS.ProcessEnv): boolean;
  /** At SessionStart, what it does for the conversation beyond the status (Claude Code: the environment file); notes on what failed. `id`: checked. */
  sessionStarted?(id: string | undefined, fields: HookFields, env: NodeJS.ProcessEnv): string[];
  /** Where its agent reads how to drive autopilot, as the SessionStart context names it. */
  instructions: string;
}
