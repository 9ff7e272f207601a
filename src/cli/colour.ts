/**
 * Whether a person's terminal gets colour, decided once, here, the way Node
 * decides it for its own output (`tty.WriteStream.getColorDepth`):
 * `FORCE_COLOR` forces it (`0` or `false` forbids it), else `NO_COLOR` or
 * `NODE_DISABLE_COLORS` or `TERM=dumb` turn it off, else the descriptor must
 * be a terminal. `util.styleText` is told not to decide again
 * (`validateStream: false`): from Node 20.17 to 20.19 it does not look at the
 * stream at all, later it would look at stdout for what goes to stderr.
 */
import { fstatSync } from 'node:fs';
import { styleText } from 'node:util';
import type { Style } from '../render/colour.js';

const FORCED = new Set(['', '1', '2', '3', 'true']);

export function wantsColour(fd: 1 | 2, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.FORCE_COLOR !== undefined) return FORCED.has(env.FORCE_COLOR);
  if (env.NO_COLOR !== undefined || env.NODE_DISABLE_COLORS !== undefined || env.TERM === 'dumb') return false;
  return isTerminal(fd);
}

/**
 * A terminal is a character device; only then is `node:tty` loaded to be
 * sure (it costs start-up a few milliseconds, which a pipe or a file, what an
 * agent reads, never pays).
 */
function isTerminal(fd: 1 | 2): boolean {
  try {
    return fstatSync(fd).isCharacterDevice() && process.getBuiltinModule('node:tty').isatty(fd);
  } catch {
    return false;
  }
}

/** Node's own painter, for the descriptor that wants colour; undefined where none is wanted. */
export function styleFor(fd: 1 | 2, env: NodeJS.ProcessEnv = process.env): Style | undefined {
  if (!wantsColour(fd, env)) return undefined;
  return (tones, text) => styleText([...tones], text, { validateStream: false });
}
