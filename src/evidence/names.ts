/**
 * The names of the checks a skill may list in `checks:`, on their own: the
 * reader of a declaration (a lazy bundle with the YAML parser) knows them
 * without carrying the judges. `index.ts` maps each to its judge, typed by
 * this list, so a name without a judge (or a judge without a name) does not compile.
 */
export const CHECK_NAMES = ['sections', 'filler', 'placeholders', 'self-check', 'acceptance-ids', 'acceptance-trace', 'exit-code', 'task-index'] as const;

export type CheckName = (typeof CHECK_NAMES)[number];
