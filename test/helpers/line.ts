/**
 * Options added to a command line where every command takes them: after the
 * command's own words, before a `--` (after which nothing is an option). A
 * person's command, and a line with a person's option, takes no option before
 * its command word (rule 10, `cli/person-order.ts`).
 */
export function withOptions(args: readonly string[], options: readonly string[]): string[] {
  const end = args.indexOf('--');
  return end < 0 ? [...args, ...options] : [...args.slice(0, end), ...options, ...args.slice(end)];
}

/** The line run in a repository: `-C <dir>` added after the command's words. */
export const inDir = (dir: string, args: readonly string[]): string[] => withOptions(args, ['-C', dir]);
