/**
 * The keys every answer of a command always carries, by answer name: what the
 * MCP tool list declares as each tool's output schema (`mcp/tools.ts`). Plain
 * data, so the MCP server's bundle does not carry the answers' full zod
 * schemas (`answers.ts`, the contract the tests hold every answer to); a unit
 * test holds each list to the required keys of its schema.
 */
import type { AnswerName } from './answers.js';

export const ANSWER_KEYS: Record<AnswerName, readonly string[]> = {
  status: ['flow', 'step', 'name', 'status', 'sub_step', 'retry_count', 'cycle', 'steps', 'source', 'drift', 'journal', 'guards', 'git_fallback'],
  step: ['flow', 'step', 'name', 'status', 'sub_step', 'retry_count', 'cycle', 'steps', 'source', 'drift', 'outcome'],
  check: ['ok', 'problems', 'flows', 'skills', 'pointer', 'journal_events', 'git_fallback'],
  log: ['events', 'problems'],
  init: ['files', 'created', 'changed', 'kept', 'commit', 'ignored', 'warnings'],
  breadcrumb: ['markdown', 'marked'],
  report: ['file'],
  lease: ['remote', 'sha', 'taken'],
  repin: ['repinned', 'changes', 'step', 'name'],
  adopt: ['adopted', 'flow', 'step', 'name', 'status', 'sub_step', 'retry_count'],
  checkpoint: ['id', 'pruned'],
  checkpoints: ['checkpoints'],
  restore: ['restored', 'step', 'name', 'status'],
  closed: ['closed'],
  hook: [],
  exec: ['command', 'exit_code', 'verify', 'seq', 'step', 'result'],
  runs: ['runs'],
};
