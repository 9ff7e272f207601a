/**
 * A command line run in a repository: `-C <dir>` after the command's own
 * words (before a `--`, after which nothing is an option), where every
 * command takes it. A person's command, and a line with a person's option,
 * takes no option before its command word (rule 10, `cli/person-order.ts`).
 */
export function inDir(dir: string, args: readonly string[]): string[] {
  const end = args.indexOf('--');
  return end < 0 ? [...args, '-C', dir] : [...args.slice(0, end), '-C', dir, ...args.slice(end)];
}
