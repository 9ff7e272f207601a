/** `autopilot uninstall`: take out what `init` put in; the run's docs folder stays unless `--remove-docs`. */
import { runUninstall, type UninstallResult } from '../app/uninstall.js';
import { EXIT } from '../errors.js';
import { defineCommand } from './command.js';

const SAID = { removed: '- ', edited: '~ ', left: '! ' } as const;
const WHAT = { removed: 'removed', edited: "autopilot's part taken out", left: 'left as it is' } as const;

const quote = (p: string) => (/^[\w./@-]+$/.test(p) ? p : `'${p.replaceAll("'", "'\\''")}'`);

function text(r: UninstallResult): string {
  const width = Math.max(0, ...r.files.map((f) => f.path.length));
  const lines = r.files.map((f) => `${SAID[f.action]}${f.path.padEnd(width)}  ${WHAT[f.action]}${f.why ? `: ${f.why}` : ''}`);
  if (r.files.length === 0) lines.push('Nothing of autopilot’s setup was found.');
  if (r.docs.state === 'removed') lines.push(`- ${r.docs.path}/ removed (the run's documents, state and journal)`);
  if (r.docs.state === 'kept')
    lines.push(`Kept ${r.docs.path}/: the run's documents, state and journal (\`autopilot uninstall --remove-docs\` removes it too).`);
  const left = r.files.filter((f) => f.action === 'left');
  if (left.length > 0) lines.push(`Changed since autopilot wrote ${left.length === 1 ? 'it' : 'them'}: remove by hand what you no longer want.`);
  if (r.commit && r.commit.length > 0) lines.push(`Commit the change: \`git add -A -- ${r.commit.map(quote).join(' ')} && git commit -m "Remove autopilot"\`.`);
  lines.push('The package itself: `npm uninstall md-autopilot`.');
  return lines.join('\n');
}

export const uninstall = defineCommand({
  name: 'uninstall',
  summary: "take out what init put in (its lines, its unchanged files); keeps the run's docs folder unless --remove-docs",
  examples: [
    { line: 'autopilot uninstall', does: "take out init's files and lines; the run's documents stay" },
    { line: 'autopilot uninstall --remove-docs', does: 'the same, and remove the docs folder too' },
  ],
  options: [
    {
      key: 'removeDocs',
      flags: '--remove-docs',
      type: 'boolean',
      summary: "also remove the docs folder: the run's documents, its state and its journal",
    },
  ],
  mcp: { omitted: 'it removes the setup the MCP server runs from: a person runs it, at a shell' },
  run: (ctx, a: { removeDocs?: boolean }) => runUninstall(ctx, { removeDocs: a.removeDocs === true }),
  view: (r) => ({ json: { files: r.files, docs: r.docs, commit: r.commit ?? [] }, text: text(r), exit: EXIT.ok }),
});
