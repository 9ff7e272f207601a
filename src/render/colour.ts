/**
 * Colour for a person at a terminal, laid over text that is already made
 * (and already made safe: nothing a repository wrote can carry an escape
 * sequence here). Pure: the text renderers stay plain, and the one place
 * that prints (`cli/main.ts`) decides whether colour is wanted (a terminal,
 * `NO_COLOR`, `FORCE_COLOR`, never with `--json` or over MCP) and passes the
 * function that paints. Colour never changes a line's width: the screens
 * keep their shape at 80 columns.
 */

export type Tone = 'green' | 'red' | 'yellow' | 'cyan' | 'bold' | 'dim';

/** Paints `text` in the tones given (Node's `util.styleText`, at the edge). */
export type Style = (tones: readonly Tone[], text: string) => string;

const RULE = /^\u2550+$/;

/** A status value in the colour a person reads it by. */
const STATUS_TONES: Record<string, readonly Tone[]> = {
  completed: ['green'],
  in_progress: ['cyan'],
  not_started: [],
  skipped: ['yellow'],
  failed: ['red', 'bold'],
};

/** The progress line's marks: done green, here cyan, passed over yellow, to come dim. */
const MARK_TONES: Record<string, readonly Tone[]> = { '✓': ['green'], '▶': ['cyan', 'bold'], '↷': ['yellow'], '·': ['dim'] };

/** A box's tone, by its title: a decision waits (yellow), a failed step stops (red), a new conversation goes on (cyan). */
function boxTone(title: string): readonly Tone[] {
  if (/^ ?STEP FAILED/.test(title)) return ['red', 'bold'];
  if (/^ ?A NEW CONVERSATION/.test(title)) return ['cyan', 'bold'];
  return ['yellow', 'bold'];
}

function labelled(line: string, label: string, paint: (value: string) => string): string | undefined {
  if (!line.startsWith(label)) return undefined;
  const value = line.slice(label.length);
  return label + paint(value);
}

/** One line of a screen (`status`, `next`, a step command's answer, `check`), painted by what it says. */
function paintLine(line: string, style: Style, box: readonly Tone[] | undefined): string {
  if (box) return style(box, line);
  const tone = (tones: readonly Tone[]) => (text: string) => (tones.length === 0 ? text : style(tones, text));
  const done = line.startsWith('Step      done');
  if (done) return style(['green'], line);
  return (
    labelled(line, 'Status    ', (v) => v.replace(/^\w+/, (s) => tone(STATUS_TONES[s] ?? [])(s))) ??
    labelled(line, 'Where     ', (v) => v.replace(/\w+$/, (s) => tone(STATUS_TONES[s] ?? [])(s))) ??
    labelled(line, 'Retries   ', (v) =>
      v.replace(/^(\d+)(?= of (\d+))/, (n, _, max: string) => (n === '0' ? n : style(n === max ? ['red', 'bold'] : ['yellow'], n))),
    ) ??
    labelled(line, 'Progress  ', (v) => v.replace(/([\u2713\u25b6\u21b7\u00b7])(\d+)/g, (token, mark: string) => tone(MARK_TONES[mark] ?? [])(token))) ??
    labelled(line, 'Problems  ', (v) => (v === 'none' ? style(['green'], v) : style(['yellow'], v))) ??
    (line === 'Problems' ? style(['yellow', 'bold'], line) : undefined) ??
    (/^ {0,2}! /.test(line) ? style(['yellow'], line) : undefined) ??
    (/^ {0,2}\u2713 /.test(line) ? style(['green'], line) : undefined) ??
    (/^ {0,2}\u2717 /.test(line) ? style(['red'], line) : undefined) ??
    (/^\u25b6 /.test(line) ? style(['cyan', 'bold'], line) : undefined) ??
    (/^\u21b7 /.test(line) ? style(['yellow'], line) : undefined) ??
    (/^ ?(?:Recommendation: |A person (?:answers|runs): )/.test(line) ? style(['bold'], line) : undefined) ??
    (/^(?:Question|Answer) {4}/.test(line) ? style(['bold'], line.slice(0, 10)) + line.slice(10) : undefined) ??
    (/^ {2}expected: /.test(line) ? style(['green'], '  expected:') + line.slice(11) : undefined) ??
    (/^ {2}received: /.test(line) ? style(['red'], '  received:') + line.slice(11) : undefined) ??
    line
  );
}

/**
 * A screen in colour: the status lines by their values, the progress marks,
 * each box (a decision, a failed step, a new conversation) in its tone, and
 * the lines that say done (✓), wrong (✗) or worth a look (!).
 */
export function paint(text: string, style: Style): string {
  const lines = text.split('\n');
  // A box is four rules: above its title, below it, above its footer, below all.
  const tones: (readonly Tone[] | undefined)[] = lines.map(() => undefined);
  for (let i = 0; i < lines.length; i++) {
    if (!RULE.test(lines[i]!) || lines[i + 1] === undefined || RULE.test(lines[i + 1]!)) continue;
    const rules = [i];
    for (let j = i + 1; j < lines.length && rules.length < 4; j++) if (RULE.test(lines[j]!)) rules.push(j);
    if (rules.length < 4) break;
    const tone = boxTone(lines[i + 1]!);
    for (let j = i; j <= rules[3]!; j++) tones[j] = RULE.test(lines[j]!) || j < rules[1]! ? tone : undefined;
    i = rules[3]!;
  }
  return lines.map((line, i) => paintLine(line, style, tones[i])).join('\n');
}

/** An error for a person: each problem's first line in red, `expected`/`received` marked, the hint plain. */
export function paintError(text: string, style: Style): string {
  const lines = text.split('\n');
  return lines
    .map((line, i) => {
      const next = lines[i + 1] ?? '';
      if (!line.startsWith(' ') && (i === 0 || /^ {2}(?:expected|received): /.test(next))) return style(['red', 'bold'], line);
      return paintLine(line, style, undefined);
    })
    .join('\n');
}
