/**
 * Every fuzz target, in one place: a new one (the pointer parser, journal
 * lines) is a `Target` object added to this list.
 */
import type { Target } from '../harness.js';
import { cliTarget } from './cli.js';
import { frontMatterTarget } from './front-matter.js';
import { parseFlowTarget } from './parse-flow.js';

export const TARGETS = [parseFlowTarget, frontMatterTarget, cliTarget] as Target<never>[];
