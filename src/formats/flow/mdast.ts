/** Small readers over the Markdown tree (mdast) that the flow parser needs. */
import type { Nodes, RootContent, Table, TableCell } from 'mdast';
import { toString } from 'mdast-util-to-string';

export function lineOf(node: { position?: { start: { line: number } } | undefined }): number {
  return node.position?.start.line ?? 0;
}

/** The values of every inline code span in a node, in order. */
export function inlineCodes(node: Nodes): string[] {
  if (node.type === 'inlineCode') return [node.value];
  if ('children' in node) return (node.children as Nodes[]).flatMap(inlineCodes);
  return [];
}

/** A node's text with inline code spans removed: what is left around the patterns. */
export function textOutsideCode(node: Nodes): string {
  if (node.type === 'inlineCode') return ' ';
  if (node.type === 'text') return node.value;
  if ('children' in node) return (node.children as Nodes[]).map(textOutsideCode).join('');
  return '';
}

export function plainText(node: Nodes): string {
  return toString(node).replace(/\s+/g, ' ').trim();
}

/** Header names folded for matching: `Done when`, `done-when` and `DONE WHEN` are one column. */
export function columnKey(cell: TableCell): string {
  return plainText(cell)
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '');
}

export function tableRows(table: Table): { header: TableCell[]; rows: { cells: TableCell[]; line: number }[] } {
  const [header, ...rows] = table.children;
  return {
    header: header?.children ?? [],
    rows: rows.map((row) => ({ cells: row.children, line: lineOf(row) })),
  };
}

/** The nodes after `index` up to the next heading of `depth` or shallower. */
export function sectionAfter(children: RootContent[], index: number, depth: number): RootContent[] {
  const out: RootContent[] = [];
  for (const node of children.slice(index + 1)) {
    if (node.type === 'heading' && node.depth <= depth) break;
    out.push(node);
  }
  return out;
}
