/**
 * The agent clients' permission rules as the clients read them, for tests
 * that try command lines against the files `init` writes:
 * - Codex's exec policy (`.codex/rules/*.rules`): `prefix_rule(pattern=[…])`,
 *   each token a word matched exactly or a list of alternatives, the pattern
 *   a prefix of the command's words (docs/codex-facts.md). Read here for the
 *   rules file autopilot writes (its variables and rules, one a line); the
 *   end-to-end test holds this reading to the real `codex execpolicy check`.
 * - Claude Code's `permissions.ask` rules `Bash(<pattern>)`: `*` any
 *   characters, the pattern the whole command (docs/claude-code-facts.md).
 * And every concrete spelling a launch's token lists stand for.
 */
import type { Token } from '../../src/clients/client.js';

type Pattern = (string | string[])[];

/** The rules of an exec-policy file autopilot wrote, with its variables put in: each rule's pattern and decision. */
export function codexPolicy(text: string): { pattern: Pattern; decision: string }[] {
  const vars = new Map<string, string>();
  const rules: { pattern: Pattern; decision: string }[] = [];
  for (const line of text.split('\n')) {
    const variable = /^([A-Z_]+) = (\[.*\])$/.exec(line);
    if (variable) vars.set(variable[1]!, variable[2]!);
    const rule = /^prefix_rule\(pattern=(\[.*\]), decision="(\w+)"\)$/.exec(line);
    if (!rule) continue;
    // A name outside the strings is a variable: its list in its place.
    const json = rule[1]!.replace(/"(?:[^"\\]|\\.)*"|[A-Z_][A-Z0-9_]*/g, (word) => (word.startsWith('"') ? word : (vars.get(word) ?? word)));
    rules.push({ pattern: JSON.parse(json) as Pattern, decision: rule[2]! });
  }
  return rules;
}

/** Codex's decision for a command's words: the first matching rule's (they all say `prompt` here), or undefined when none matches. */
export function codexDecision(policy: ReturnType<typeof codexPolicy>, words: readonly string[]): string | undefined {
  const matches = (pattern: Pattern) =>
    words.length >= pattern.length && pattern.every((token, i) => (typeof token === 'string' ? token === words[i] : token.includes(words[i]!)));
  return policy.find((rule) => matches(rule.pattern))?.decision;
}

/** Whether one of Claude Code's `Bash(…)` ask rules holds the command. */
export function claudeAsks(rules: readonly string[], command: string): boolean {
  return rules.some((rule) => {
    const body = /^Bash\((.*)\)$/.exec(rule)?.[1];
    if (body === undefined) return false;
    const source = body
      .split('*')
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*');
    return new RegExp(`^${source}$`, 's').test(command);
  });
}

/** Every concrete spelling of a launch's token lists (each list of alternatives unfolded). */
export function concreteSpellings(spellings: readonly (readonly Token[])[]): string[][] {
  const unfold = (tokens: readonly Token[]): string[][] =>
    tokens.reduce<string[][]>((heads, token) => heads.flatMap((head) => (typeof token === 'string' ? [token] : token).map((w) => [...head, w])), [[]]);
  return spellings.flatMap(unfold);
}
