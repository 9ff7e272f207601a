/**
 * Where a person's words stand on the command line (rule 10,
 * docs/sessions.md "The decisions that are yours"). The agent clients'
 * permission rules that `init` writes recognise a command by its first words:
 * Codex's exec policy matches each word exactly, with no wildcard. So a
 * command only a person decides (`decide`, `ack`, …) takes every option after
 * its command word, and a person's option (`--force`, `--accept-failures`,
 * `--take-over`) stands right after the command word, before any other; then
 * one rule per command, and one per option, holds every line the command line
 * accepts. Any other order is refused (exit 2) with the same line in order.
 * Pure: the words in, a problem or nothing out.
 */
import type { Problem } from '../errors.js';

export interface PersonWords {
  /** The command's name and where it stands among the words. */
  name: string;
  at: number;
  /** Whether only a person decides the command itself. */
  person: boolean;
  /** The person's options the line carries, as typed (`--force`). */
  flags: readonly string[];
}

/** A word as a shell shows it: quoted when it holds more than plain characters. */
const shown = (word: string) => (/^[\w./:=@%+-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`);

/** The line in the order the rules can see: the command word, the person's options, the rest as typed. */
function inOrder(args: readonly string[], words: PersonWords, isFlag: (word: string) => boolean): string {
  const before = args.slice(0, words.at).filter((w) => w !== '--');
  const after = args.slice(words.at + 1);
  const flags = after.filter(isFlag);
  const rest = after.filter((w) => !isFlag(w));
  return ['autopilot', words.name, ...flags, ...rest, ...before].map(shown).join(' ');
}

/** Why the line is refused, or undefined when a person's words stand where the rules see them. */
export function personOrderProblem(args: readonly string[], words: PersonWords): Problem | undefined {
  if (!words.person && words.flags.length === 0) return undefined;
  const end = args.indexOf('--', words.at + 1);
  const isFlag = (word: string) => words.flags.some((flag) => word === flag || word.startsWith(`${flag}=`));
  const at = args.map((word, i) => (i > words.at && (end < 0 || i < end) && isFlag(word) ? i : -1)).filter((i) => i >= 0);
  const lead = at.every((i, n) => i === words.at + 1 + n);
  if (words.at === 0 && lead) return undefined;
  const flags = words.flags.map((f) => `\`${f}\``).join(' and ');
  const what = words.person
    ? `\`autopilot ${words.name}\` is a person's command`
    : `${flags} ${words.flags.length > 1 ? "are a person's options" : "is a person's option"}`;
  const where =
    words.at > 0
      ? `every option goes after the command word \`${words.name}\` (\`${args.slice(0, words.at).join(' ')}\` came before it)`
      : `${words.flags.length > 1 ? 'they go' : 'it goes'} right after the command word \`${words.name}\`, before any other option or argument`;
  return {
    message: `${what}: ${where}, so that the agent client's permission rules see it`,
    expected: `\`${inOrder(args, words, isFlag)}\``,
    received: `autopilot ${args.map(shown).join(' ')}`,
  };
}
