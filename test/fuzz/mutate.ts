/**
 * Mutations of real files: each takes a text and a seeded generator and
 * returns a damaged text. Some are blind (delete, duplicate, swap lines,
 * random bytes), some aim at what makes parsers slow or crash (deep nesting,
 * long runs, YAML aliases, huge cells, odd line endings), some at the flow's
 * meaning (step numbers, patterns, Then values).
 */
import type { Rng } from './rng.js';

export type Mutation = (text: string, r: Rng) => string;

/** Far past every size limit, and small enough that mutations of mutations stay within memory. */
const MAX_TEXT = 1024 * 1024;

const lines = (text: string) => text.split('\n');
const unlines = (list: string[]) => list.join('\n');

const PUNCTUATION = '*_~`[]()<>!|#-+=:\\&@{}"\'.,;/?^$%';
const SNIPPETS = [
  '**',
  '__',
  '~~',
  '```',
  '~~~',
  '<!--',
  '-->',
  '<div>',
  '</div>',
  '<script>',
  '[a](b)',
  '![a](b)',
  '[^1]',
  '[^1]: note',
  '[a]: /url',
  '&amp;',
  '&#x0;',
  '\\',
  '| a | b |',
  '|---|---|',
  '- [ ] task',
  '1. ',
  '> ',
  '- ',
  '    ',
  '\t',
  '---',
  '===',
  '# ',
  '## Step Reference Table',
  '## Decisions',
  '### `x`: Question?',
  'www.example.com',
  'https://example.com/a_b',
  'a@b.co',
  '`{cycle}`',
  '`**`',
  '`../x`',
  '`/abs`',
  '`{docs}/x`',
  '`{nope}`',
  'decision `nope`',
  'loop to step 0',
  'loop to step 99',
  'end',
  'next',
  'session boundary',
  'optional',
  'if `x.md` exists',
  'Recommendation: Z — none',
  '\u0000',
  '\ufeff',
  '\ud800',
  '\u202e',
  '😀',
  '\r',
  '\r\n',
];
const YAML_SNIPPETS = [
  'x: *a',
  'a: &a [1, 2]',
  'b: *a',
  'c: &c [*c]',
  'd: !!binary aGVsbG8=',
  'e: !foo bar',
  'f: 0x1F',
  'g: .inf',
  'h: ~',
  'scan_order: 1.5',
  'scan_order: "1"',
  'id: [a]',
  'title:',
  'detect: 3',
  'detect: { any: 3 }',
  'detect: { any: ["**"], none: ["../x"] }',
  'detect: { other: [a] }',
  '<<: *a',
  '? complex key',
  '- list at top',
  '"unterminated',
  "'unterminated",
  'key: value: more',
  '  bad indent: 1',
  '\tid: tab',
  '%YAML 1.1',
  '--- !!map',
  '...',
];

function nested(r: Rng, depth: number): string {
  switch (r.int(5)) {
    case 0:
      return '> '.repeat(depth) + 'deep';
    case 1:
      return Array.from({ length: Math.min(depth, 2000) }, (_, i) => '  '.repeat(i) + '- item').join('\n');
    case 2:
      return '- '.repeat(depth) + 'x';
    case 3:
      return '> - '.repeat(depth) + 'x';
    default:
      return Array.from({ length: Math.min(depth, 2000) }, (_, i) => '>'.repeat(i + 1) + ' x').join('\n');
  }
}

function run(r: Rng, length: number): string {
  const unit = r.pick([
    '*',
    '_',
    '~',
    '`',
    '[',
    ']',
    '|',
    '<',
    '\\',
    '!',
    '#',
    '-',
    '*a ',
    '_a ',
    '[a](b)',
    '`a` ',
    '<b>',
    '&amp;',
    'www.a.co ',
    'a\n',
    '\n',
    ' ',
  ]);
  switch (r.int(3)) {
    case 0:
      return unit.repeat(length);
    case 1:
      return `${unit.repeat(length)}word${unit.repeat(length)}`;
    default:
      return `${'*a '.repeat(length)}${'b*'.repeat(length)}`;
  }
}

function randomText(r: Rng, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) {
    const kind = r.int(10);
    if (kind < 4) out += String.fromCharCode(97 + r.int(26));
    else if (kind < 7) out += r.pick([...PUNCTUATION]);
    else if (kind < 8) out += r.pick([' ', '\n', '\t', '\r']);
    else if (kind < 9) out += String.fromCharCode(r.int(0x80));
    else out += String.fromCharCode(r.int(0x10000));
  }
  return out;
}

const at = (text: string, r: Rng) => r.int(text.length + 1);
const insertAt = (text: string, position: number, what: string) => text.slice(0, position) + what + text.slice(position);
const insertLine = (text: string, r: Rng, what: string) => {
  const list = lines(text);
  list.splice(r.int(list.length + 1), 0, what);
  return unlines(list);
};
/** The front matter's lines, if the text starts with one: [first line index, closing line index]. */
function frontMatter(list: string[]): [number, number] | undefined {
  if (list[0] !== '---') return undefined;
  const end = list.indexOf('---', 1);
  return end > 0 ? [0, end] : undefined;
}

export const MUTATIONS: Record<string, Mutation> = {
  deleteLines: (text, r) => {
    const list = lines(text);
    list.splice(r.int(list.length), r.size(1, 10));
    return unlines(list);
  },
  duplicateLines: (text, r) => {
    const list = lines(text);
    const from = r.int(list.length);
    const slice = list.slice(from, from + r.size(1, 10));
    const times = r.size(1, 300);
    list.splice(r.int(list.length), 0, ...Array.from({ length: times }, () => slice).flat());
    return unlines(list);
  },
  swapLines: (text, r) => {
    const list = lines(text);
    const a = r.int(list.length);
    const b = r.int(list.length);
    [list[a], list[b]] = [list[b]!, list[a]!];
    return unlines(list);
  },
  truncate: (text, r) => text.slice(0, at(text, r)),
  insertBytes: (text, r) => insertAt(text, at(text, r), randomText(r, r.size(1, 200))),
  replaceChar: (text, r) => {
    const i = r.int(Math.max(1, text.length));
    return text.slice(0, i) + r.pick([...PUNCTUATION, ' ', '\n', 'a', '0']) + text.slice(i + 1);
  },
  insertSnippet: (text, r) => insertAt(text, at(text, r), r.pick(SNIPPETS)),
  insertSnippetLine: (text, r) => insertLine(text, r, r.pick(SNIPPETS) + (r.chance(0.5) ? r.pick(SNIPPETS) : '')),
  deepNesting: (text, r) => insertLine(text, r, nested(r, r.size(2, 20_000))),
  longRun: (text, r) => insertAt(text, at(text, r), run(r, r.size(2, 20_000))),
  hugeCell: (text, r) => {
    const list = lines(text);
    const rows = list.flatMap((l, i) => (l.startsWith('|') ? [i] : []));
    if (rows.length === 0) return text;
    const i = r.pick(rows);
    const cells = list[i]!.split('|');
    const c = 1 + r.int(Math.max(1, cells.length - 2));
    cells[c] = ` ${r.pick(['x', '`a`', '**b**', '[l](u)', 'word '])}`.repeat(r.size(10, 20_000));
    list[i] = cells.join('|');
    return unlines(list);
  },
  extraColumns: (text, r) => unlines(lines(text).map((l) => (l.startsWith('|') && r.chance(0.5) ? l + ' x |'.repeat(r.size(1, 2_000)) : l))),
  yamlLine: (text, r) => {
    const list = lines(text);
    const fm = frontMatter(list);
    const where = fm ? 1 + r.int(fm[1]) : 0;
    list.splice(where, 0, r.pick(YAML_SNIPPETS));
    return unlines(list);
  },
  yamlAliasBomb: (text, r) => {
    const list = lines(text);
    const levels = r.size(2, 10);
    const width = r.size(2, 10);
    const bomb = [`l0: &l0 [${Array.from({ length: width }, () => '"lol"').join(', ')}]`];
    for (let i = 1; i < levels; i++) bomb.push(`l${i}: &l${i} [${Array.from({ length: width }, () => `*l${i - 1}`).join(', ')}]`);
    list.splice(frontMatter(list) ? 1 : 0, 0, ...bomb);
    return unlines(list);
  },
  yamlManyAliases: (text, r) => {
    const list = lines(text);
    const n = r.size(1, 3_000);
    list.splice(frontMatter(list) ? 1 : 0, 0, 'a0: &a0 x', ...Array.from({ length: n }, (_, i) => `r${i}: *a0`));
    return unlines(list);
  },
  yamlDeep: (text, r) => {
    const list = lines(text);
    const depth = r.size(2, 20_000);
    const open = r.pick(['[', '{a: ', '- ']);
    const close = open === '[' ? ']' : open === '- ' ? '' : '}';
    list.splice(frontMatter(list) ? 1 : 0, 0, `deep: ${open.repeat(depth)}1${close.repeat(depth)}`);
    return unlines(list);
  },
  dropFrontMatterFence: (text, r) => {
    const list = lines(text);
    const fm = frontMatter(list);
    if (fm) list.splice(r.pick(fm), 1);
    return unlines(list);
  },
  lineEndings: (text, r) => text.replace(/\n/g, r.pick(['\r\n', '\r', '\n\n', '\u2028'])),
  repeatAll: (text, r) => text.repeat(Math.min(r.size(2, 300), Math.ceil(MAX_TEXT / Math.max(1, text.length)))),
  tokenSwap: (text, r) => {
    const tokens = ['next', 'end', 'always', 'optional', 'session boundary', 'decision', '1', '2', '99', '0', 'A', 'B', 'E', 'continue', 'repeat'];
    return text.replace(new RegExp(`\\b${r.pick(tokens)}\\b`), r.pick(tokens));
  },
  patternSwap: (text, r) =>
    text.replace(/`[^`\n]*\.md`/, r.pick(['`**/*.md`', '`../up.md`', '`/abs.md`', '`a//b.md`', '`{cycle}/x.md`', '`[a-.md`', '`*`', '``', '`{x}.md`'])),
  stepNumber: (text, r) => text.replace(/^\| \d+ \|/m, `| ${r.pick(['0', '-1', '1.5', 'x', '999999999999', '', '2'])} |`),
  randomTail: (text, r) => text + randomText(r, r.size(1, 2_000)),
};

const NAMES = Object.keys(MUTATIONS);

/** One to four mutations, chosen and applied in order. */
export function mutate(text: string, r: Rng): { text: string; applied: string[] } {
  const applied: string[] = [];
  let out = text;
  for (let n = 1 + r.int(4); n > 0; n--) {
    const name = r.pick(NAMES);
    applied.push(name);
    out = MUTATIONS[name]!(out, r).slice(0, MAX_TEXT);
  }
  return { text: out, applied };
}

/** Text made from nothing: random characters, or random snippets. */
export function randomDocument(r: Rng): string {
  if (r.chance(0.5)) return randomText(r, r.size(0, 5_000));
  return Array.from({ length: r.size(1, 200) }, () => r.pick(SNIPPETS)).join(r.pick(['\n', ' ', '']));
}

export function randomYaml(r: Rng): string {
  return Array.from({ length: r.size(1, 40) }, () => r.pick(YAML_SNIPPETS)).join('\n');
}
