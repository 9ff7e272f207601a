/** `autopilot uninstall`: take out what `init` put in; the run's docs folder stays unless `--remove-docs`, and a person's own files in it always. */
import { runUninstall, type UninstallResult } from '../app/setup/uninstall.js';
import { EXIT } from '../errors.js';
import { defineCommand } from './command.js';

const SAID = { removed: '- ', edited: '~ ', left: '! ' } as const;
const WHAT = { removed: 'removed', edited: "autopilot's part taken out", left: 'left as it is' } as const;

/** How many of a person's files the text names one by one (`--json` lists them all). */
const SHOWN = 20;

/** What became of the docs folder: removed; autopilot's files out and a person's kept, each named; or kept whole. */
function docsLines(docs: UninstallResult['docs']): string[] {
  const n = (count: number, what: string) => `${count} ${what}${count === 1 ? '' : 's'}`;
  if (docs.state === 'removed') return [`- ${docs.path}/ removed (${n(docs.removed?.length ?? 0, 'file')}: the run's documents, state and journal)`];
  if (docs.state !== 'kept') return [];
  if (!docs.kept)
    return [`Kept ${docs.path}/: the run's documents, state and journal (\`autopilot uninstall --remove-docs\` removes autopilot's files from it).`];
  const more = docs.kept.length - SHOWN;
  return [
    `- ${n(docs.removed?.length ?? 0, 'file')} of autopilot's under ${docs.path}/ removed: the run's state, journal and step outputs`,
    `Kept under ${docs.path}/, not autopilot's (${n(docs.kept.length, 'file')}, yours to keep or remove):`,
    ...docs.kept.slice(0, SHOWN).map((file) => `  ${file}`),
    ...(more > 0 ? [`  … and ${more} more (\`--json\` lists them all)`] : []),
  ];
}
const quote = (p: string) => (/^[\w./@-]+$/.test(p) ? p : `'${p.replaceAll("'", "'\\''")}'`);

function text(r: UninstallResult): string {
  const width = Math.max(0, ...r.files.map((f) => f.path.length));
  const lines = r.files.map((f) => `${SAID[f.action]}${f.path.padEnd(width)}  ${WHAT[f.action]}${f.why ? `: ${f.why}` : ''}`);
  if (r.files.length === 0) lines.push('Nothing of autopilot’s setup was found.');
  lines.push(...docsLines(r.docs));
  const left = r.files.filter((f) => f.action === 'left');
  if (left.length > 0) lines.push(`Changed since autopilot wrote ${left.length === 1 ? 'it' : 'them'}: remove by hand what you no longer want.`);
  if (r.commit && r.commit.length > 0) lines.push(`Commit the change: \`git add -A -- ${r.commit.map(quote).join(' ')} && git commit -m "Remove autopilot"\`.`);
  lines.push('The package itself: `npm uninstall md-autopilot`.');
  return lines.join('\n');
}

export const uninstall = defineCommand({
  name: 'uninstall',
  anyRun: true,
  summary: "take out what init put in (its lines, its unchanged files); keeps the run's docs folder unless --remove-docs",
  examples: [
    { line: 'autopilot uninstall', does: "take out init's files and lines; the run's documents stay" },
    { line: 'autopilot uninstall --remove-docs', does: "the same, and the run's files under the docs folder too; a person's own notes there stay" },
  ],
  options: [
    {
      key: 'removeDocs',
      flags: '--remove-docs',
      type: 'boolean',
      summary:
        "also remove autopilot's files under the docs folder: the run's state, journal and step outputs (a person's own files there are kept, and listed)",
    },
  ],
  mcp: { omitted: 'it removes the setup the MCP server runs from: a person runs it, at a shell' },
  run: (ctx, a: { removeDocs?: boolean }) => runUninstall(ctx, { removeDocs: a.removeDocs === true }),
  view: (r) => ({ json: { files: r.files, docs: r.docs, commit: r.commit ?? [] }, text: text(r), exit: EXIT.ok }),
});
