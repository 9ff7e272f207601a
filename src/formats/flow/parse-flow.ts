/**
 * Flow file → Flow. Markdown is parsed once by unified (remark-parse,
 * remark-frontmatter, remark-gfm); the front matter, the Step Reference Table
 * and the Decisions section are then read from the tree, each by its own
 * function, and checked together by `validateFlow`. Every problem found is
 * returned, each with its file and line.
 *
 * A flow file is untrusted input: `markdownShapeProblem` refuses, in one
 * linear pass, the shapes that would make remark overflow the stack or slow
 * down, and anything remark or a tree reader still throws becomes a problem.
 *
 * This module is heavy (it loads the Markdown parser), so the shell imports it
 * only when no cached parse of the file exists.
 */
import type { Heading, Root, RootContent, Table } from 'mdast';
import remarkFrontmatter from 'remark-frontmatter';
import remarkGfm from 'remark-gfm';
import remarkParse from 'remark-parse';
import { unified } from 'unified';
import type { Problem } from '../../errors.js';
import { hashText } from '../../hash.js';
import { FLOW_MAX_BYTES, tooLarge } from '../../limits.js';
import { readFrontMatter } from './front-matter.js';
import { markdownShapeProblem } from './markdown-shape.js';
import { columnKey, inlineCodes, lineOf, plainText, sectionAfter, tableRows, textOutsideCode } from './mdast.js';
import type { Decision, DecisionEffect, Flow, Step } from './model.js';
import { readBatches, readDoneWhen, readName, readRuns, readSkill, readStepNumber, readThen, type CellResult } from './step-cells.js';
import { validateFlow } from './validate-flow.js';
import { GFM_UNREAD, withoutConstructs } from './unread-constructs.js';

const processor = unified().use(remarkParse).use(remarkFrontmatter, ['yaml']).use(remarkGfm).use(withoutConstructs, GFM_UNREAD);

export const STEP_TABLE_HEADING = 'Step Reference Table';
const STEP_COLUMNS = ['step', 'name', 'runs', 'skill', 'substeps', 'donewhen', 'then'] as const;
const STEP_TABLE_EXAMPLE = '| Step | Name | Runs | Skill | Sub-steps | Done when | Then |';
const DECISION_TABLE_EXAMPLE = '| Option | Choice | Then |';

export interface ParsedFlow {
  flow?: Flow;
  problems: Problem[];
}

const headingText = (node: Heading) => plainText(node).toLowerCase();

/** Starts the message of the problem made from an exception the shape limits should have prevented (the fuzz suite counts these). */
export const PARSER_FAILED = 'the Markdown parser failed on this file';

export function parseFlow(text: string, file: string, id: string): ParsedFlow {
  // The loader refuses a large file before reading it; checked again here for callers that hand text in.
  const bytes = Buffer.byteLength(text);
  if (bytes > FLOW_MAX_BYTES) return { problems: [tooLarge(file, 'flow file', bytes, FLOW_MAX_BYTES)] };
  const shape = markdownShapeProblem(text, file);
  if (shape) return { problems: [shape] };
  try {
    return readFlow(text, file, id);
  } catch (error) {
    return {
      problems: [
        {
          file,
          message: `${PARSER_FAILED}: ${error instanceof Error ? error.message : String(error)}`,
          expected: 'a flow shaped like the built-in ones (see docs/flow-format.md)',
          received: error instanceof Error ? error.name : typeof error,
        },
      ],
    };
  }
}

function readFlow(text: string, file: string, id: string): ParsedFlow {
  const tree = processor.parse(text) as Root;
  const problems: Problem[] = [];

  const yamlNode = tree.children[0]?.type === 'yaml' ? tree.children[0] : undefined;
  if (!yamlNode) {
    problems.push({
      file,
      line: 1,
      message: 'the flow has no front matter',
      expected: `a block at the top: ---\\nid: ${id}\\ntitle: …\\nscan_order: 1\\n---`,
      received: text.split('\n')[0] ?? '',
    });
  }
  const front = yamlNode ? readFrontMatter(yamlNode.value, file, lineOf(yamlNode), id) : { problems: [] };
  problems.push(...front.problems);

  const steps = readStepTable(tree.children, file, problems);
  const decisions = readDecisions(tree.children, file, problems);

  if (problems.length > 0 || !front.value || !steps) return { problems };
  const flow: Flow = { ...front.value, steps, decisions, file, hash: hashText(text) };
  const invalid = validateFlow(flow);
  return invalid.length > 0 ? { problems: invalid } : { flow, problems: [] };
}

function readStepTable(children: RootContent[], file: string, problems: Problem[]): Step[] | undefined {
  const index = children.findIndex((n) => n.type === 'heading' && n.depth === 2 && headingText(n) === STEP_TABLE_HEADING.toLowerCase());
  if (index < 0) {
    problems.push({
      file,
      line: 1,
      message: `the flow has no \`## ${STEP_TABLE_HEADING}\``,
      expected: `a heading \`## ${STEP_TABLE_HEADING}\` followed by a table ${STEP_TABLE_EXAMPLE}`,
      received: 'no such heading',
    });
    return undefined;
  }
  const heading = children[index]!;
  const table = sectionAfter(children, index, 2).find((n): n is Table => n.type === 'table');
  if (!table) {
    problems.push({
      file,
      line: lineOf(heading),
      message: `\`## ${STEP_TABLE_HEADING}\` is not followed by a table`,
      expected: `a GFM table ${STEP_TABLE_EXAMPLE}`,
      received: 'no table in that section',
    });
    return undefined;
  }

  const { header, rows } = tableRows(table);
  const column = new Map<string, number>();
  header.forEach((cell, i) => column.set(columnKey(cell), i));
  const missing = STEP_COLUMNS.filter((c) => !column.has(c));
  if (missing.length > 0) {
    problems.push({
      file,
      line: lineOf(table),
      message: `the step table lacks column(s): ${missing.join(', ')}`,
      expected: STEP_TABLE_EXAMPLE,
      received: `| ${header.map((c) => plainText(c)).join(' | ')} |`,
    });
    return undefined;
  }
  if (rows.length === 0) {
    problems.push({ file, line: lineOf(table), message: 'the step table has no steps', expected: 'one row per step', received: 'a header row only' });
    return undefined;
  }

  const steps: Step[] = [];
  rows.forEach(({ cells, line }, i) => {
    const cell = (name: (typeof STEP_COLUMNS)[number]) => cells[column.get(name)!] ?? { type: 'tableCell' as const, children: [] };
    const take = <T>(result: CellResult<T>): T | undefined => {
      if (result.ok) return result.value;
      problems.push({ file, line, message: result.message, expected: result.expected, received: result.received });
      return undefined;
    };
    const number = take(readStepNumber(cell('step'), i + 1));
    const name = take(readName(cell('name')));
    const skill = take(readSkill(cell('skill')));
    const doneWhen = take(readDoneWhen(cell('donewhen')));
    const runs = take(readRuns(cell('runs')));
    const then = take(readThen(cell('then')));
    const batches = readBatches(cell('substeps'));
    take(batches);
    if (number === undefined || name === undefined || skill === undefined || !doneWhen || !runs || !then || !batches.ok) return;
    steps.push({
      number,
      name,
      skill,
      subSteps: plainText(cell('substeps')),
      ...(batches.value ? { batches: batches.value } : {}),
      doneWhen,
      runs,
      then,
      line,
    });
  });
  return steps.length === rows.length ? steps : undefined;
}

function readDecisions(children: RootContent[], file: string, problems: Problem[]): Record<string, Decision> {
  const decisions: Record<string, Decision> = {};
  const index = children.findIndex((n) => n.type === 'heading' && n.depth === 2 && headingText(n) === 'decisions');
  if (index < 0) return decisions;
  const section = sectionAfter(children, index, 2);
  section.forEach((node, i) => {
    if (node.type !== 'heading' || node.depth !== 3) return;
    const decision = readDecision(node, sectionAfter(section, i, 3), file, problems);
    if (!decision) return;
    if (decisions[decision.id]) {
      problems.push({
        file,
        line: decision.line,
        message: `the decision \`${decision.id}\` is declared twice`,
        expected: 'one `###` heading per decision id',
        received: `a second \`${decision.id}\``,
      });
    }
    decisions[decision.id] = decision;
  });
  return decisions;
}

function readDecision(heading: Heading, body: RootContent[], file: string, problems: Problem[]): Decision | undefined {
  const line = lineOf(heading);
  const ids = inlineCodes(heading);
  const question = textOutsideCode(heading)
    .replace(/^[\s:—–-]+/, '')
    .trim();
  const count = problems.length;
  const problem = (message: string, expected: string, received: string, at = line) => problems.push({ file, line: at, message, expected, received });
  if (ids.length !== 1 || !/^[a-z0-9][a-z0-9-]*$/.test(ids[0]!) || !question) {
    problem(
      'a decision heading needs an id in backticks and the question',
      '### `research-round`: Another research round, or go on to Plan?',
      plainText(heading),
    );
    return undefined;
  }

  const table = body.find((n): n is Table => n.type === 'table');
  const options: Decision['options'] = [];
  if (!table) problem(`the decision \`${ids[0]}\` has no options table`, DECISION_TABLE_EXAMPLE, 'no table');
  else {
    const { header, rows } = tableRows(table);
    const keys = header.map(columnKey);
    const [o, c, t] = ['option', 'choice', 'then'].map((k) => keys.indexOf(k));
    if (o! < 0 || c! < 0 || t! < 0)
      problem(`the options table of \`${ids[0]}\` lacks a column`, DECISION_TABLE_EXAMPLE, `| ${header.map((h) => plainText(h)).join(' | ')} |`, lineOf(table));
    else {
      rows.forEach(({ cells, line: rowLine }, i) => {
        const letter = plainText(cells[o!] ?? { type: 'tableCell', children: [] })
          .replace(/\W/g, '')
          .toUpperCase();
        const choice = plainText(cells[c!] ?? { type: 'tableCell', children: [] });
        const then = plainText(cells[t!] ?? { type: 'tableCell', children: [] })
          .toLowerCase()
          .replace(/`/g, '');
        const expectedLetter = 'ABCD'[i];
        if (letter !== expectedLetter)
          problem(
            `option ${i + 1} of \`${ids[0]}\` has the wrong letter`,
            `options lettered A, B, C, D in order; this row is \`${expectedLetter ?? '(too many)'}\``,
            letter || '(empty)',
            rowLine,
          );
        else if (!choice) problem(`option ${letter} of \`${ids[0]}\` has no choice text`, 'one line saying what the option does', '(empty)', rowLine);
        else if (then !== 'continue' && then !== 'repeat')
          problem(
            `option ${letter} of \`${ids[0]}\` has an unknown effect`,
            '`continue` (go on to the next step) or `repeat` (run this step again)',
            then || '(empty)',
            rowLine,
          );
        else options.push({ letter, choice, then: then as DecisionEffect });
      });
      if (rows.length < 2 || rows.length > 4)
        problem(`the decision \`${ids[0]}\` has ${rows.length} option(s)`, '2 to 4 options, A to D', `${rows.length}`, lineOf(table));
    }
  }

  const recommendation = body
    .filter((n) => n.type === 'paragraph')
    .map((n) => ({ text: plainText(n), line: lineOf(n) }))
    .find((p) => /^recommendation\b/i.test(p.text));
  const parsed = recommendation && /^recommendation\s*:?\s*([A-D])\s*[—–:-]+\s*(\S.*)$/i.exec(recommendation.text);
  if (!parsed)
    problem(
      `the decision \`${ids[0]}\` has no recommendation`,
      'a paragraph `Recommendation: B — why B is the better choice`',
      recommendation?.text ?? 'none',
      recommendation?.line ?? line,
    );
  else if (!options.some((opt) => opt.letter === parsed[1]!.toUpperCase()))
    problem(`the recommendation of \`${ids[0]}\` names no option`, `one of ${options.map((opt) => opt.letter).join(', ')}`, parsed[1]!, recommendation!.line);

  if (problems.length > count || !parsed) return undefined;
  return { id: ids[0]!, question, options, recommendation: { letter: parsed[1]!.toUpperCase(), reason: parsed[2]!.trim() }, line };
}
