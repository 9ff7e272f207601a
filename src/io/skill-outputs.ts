/**
 * Reads the outputs a SKILL.md declares (its front matter's `outputs:`, the
 * format: `formats/skill-outputs.ts`). A lazy bundle of its own: it brings
 * the YAML parser, loaded only for a skill whose front matter names
 * `outputs:` and that the build has not pre-parsed (a repository's own skill).
 */
import type { Problem } from '../errors.js';
import type { OutputDeclaration } from '../evidence/types.js';
import { parseOutputsDeclaration } from '../formats/skill-outputs.js';

export function parseSkillOutputs(text: string, file: string): { outputs: OutputDeclaration[] } | { problem: Problem } | undefined {
  return parseOutputsDeclaration(text, file);
}
