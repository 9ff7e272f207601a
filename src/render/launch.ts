/**
 * The hints of a text (`run \`autopilot next\``, `A person answers: autopilot
 * decide <A|B>`) said with the launch that works where the command ran
 * (`app/where.ts`, `hintLaunch`): every `autopilot <command>` whose command is
 * one of the registry's, and nothing else (`/autopilot`, `.autopilot/`,
 * `node_modules/.bin/autopilot`, "autopilot commits" stay as they are). Pure:
 * the launch is asked for only when the text holds a hint.
 */

const cache = new Map<string, RegExp>();

/** `autopilot ` as a word of its own, followed by one of the commands as a word of its own (after `-C DIR`, if any). */
function hintPattern(commands: readonly string[]): RegExp {
  const key = commands.join(' ');
  let pattern = cache.get(key);
  if (!pattern) {
    const names = [...commands].sort((a, b) => b.length - a.length).join('|');
    pattern = new RegExp(`(?<![\\w./@$-])autopilot (?=(?:-C \\S+ )?(?:${names})(?![\\w-]))`, 'g');
    cache.set(key, pattern);
  }
  return pattern;
}

/** `text` with each hint's `autopilot` replaced by `launch()`; the text itself when it holds none. */
export function withLaunch(text: string, commands: readonly string[], launch: () => string): string {
  const pattern = hintPattern(commands);
  pattern.lastIndex = 0;
  if (!pattern.test(text)) return text;
  const said = launch();
  if (said === 'autopilot') return text;
  return text.replace(pattern, () => `${said} `);
}
