/**
 * Every fuzz target, in one place: a new one is a `Target` object added to this list.
 */
import type { Target } from '../harness.js';
import { cliTarget } from './cli.js';
import { frontMatterTarget } from './front-matter.js';
import { journalTarget } from './journal.js';
import { parseFlowTarget } from './parse-flow.js';
import { pointerTarget } from './pointer.js';

export const TARGETS = [parseFlowTarget, frontMatterTarget, pointerTarget, journalTarget, cliTarget] as Target<never>[];
