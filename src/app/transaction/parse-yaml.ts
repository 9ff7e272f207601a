/** YAML for the settings file, in its own module so the command line loads the parser only when a settings file exists. */
import { parse } from 'yaml';
import { CONFIG_MAX_ALIASES } from '../../limits.js';

export function parseYaml(text: string): unknown {
  return parse(text, { maxAliasCount: CONFIG_MAX_ALIASES });
}
