/**
 * The hints of a text (`run \`autopilot next\``, `A person answers: autopilot
 * decide <A|B>`) said with the launch that works where the command ran
 * (`app/views/where.ts`, `hintLaunch`): every `autopilot <command>` whose command is
 * one of the registry's, and nothing else (`/autopilot`, `.autopilot/`,
 * `node_modules/.bin/autopilot`, "autopilot commits" stay as they are). Pure:
 * the launch is asked for only when the text holds a hint.
 */

const cache = new Map<string, RegExp>();

/** `autopilot ` as a word of its own, then `-C DIR` (if any), then one of the commands as a word of its own. */
function hintPattern(commands: readonly string[]): RegExp {
  const key = commands.join(' ');
  let pattern = cache.get(key);
  if (!pattern) {
    const names = [...commands].sort((a, b) => b.length - a.length).join('|');
    pattern = new RegExp(`(?<![\\w./@$-])autopilot (-C \\S+ )?(${names})(?![\\w-])`, 'g');
    cache.set(key, pattern);
  }
  return pattern;
}

/**
 * `text` with each hint's `autopilot` replaced by `launch()`, and the
 * options that chose the repository (`where`: ` -C ../x`, as given) after
 * its command word where the hint has none of its own; the text itself when
 * it holds no hint, or the launch is a bare `autopilot` (said as it is).
 * `run` (` --run NAME`, the run the command acted on) follows every hint's
 * command word, whatever the launch: a hint without it acts on another run.
 */
export function withLaunch(text: string, commands: readonly string[], launch: () => string, where = '', run = ''): string {
  const pattern = hintPattern(commands);
  pattern.lastIndex = 0;
  if (!pattern.test(text)) return text;
  const said = launch();
  if (said === 'autopilot' && run === '') return text;
  const at = said === 'autopilot' ? '' : where;
  return text.replace(pattern, (_, dir: string | undefined, command: string) => (dir ? `${said} ${dir}${command}${run}` : `${said} ${command}${at}${run}`));
}
