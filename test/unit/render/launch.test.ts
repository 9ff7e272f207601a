/** The hints of a text said with the launch that works here: `autopilot <command>` only, nothing else named autopilot. */
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../../src/commands/index.js';
import { withLaunch } from '../../../src/render/launch.js';

const NAMES = COMMANDS.map((c) => c.name);
const NPX = 'npx --no -- autopilot';

describe('withLaunch', () => {
  it('says 8 hints of 7 shapes with the launch: backquoted, after a colon, in a list, chained, with options, at the start, before -C DIR', () => {
    const text = [
      'Next: step 4 — run `autopilot next`',
      'A person answers: autopilot decide <A|B>',
      '  Finished:  autopilot done      Failed: autopilot fail --reason "<why>"',
      'autopilot ack && autopilot next',
      '(`autopilot check --repair` moves them aside)',
      'Next: autopilot -C ../x init',
    ].join('\n');
    const said = withLaunch(text, NAMES, () => NPX);
    expect(said.match(/npx --no -- autopilot [\w-]+/g)).toEqual([
      `${NPX} next`,
      `${NPX} decide`,
      `${NPX} done`,
      `${NPX} fail`,
      `${NPX} ack`,
      `${NPX} next`,
      `${NPX} check`,
      `${NPX} -C`,
    ]);
    expect(said).not.toMatch(/(^|[^-] )autopilot (next|decide|done|fail|ack|check)\b/m);
  });

  it('leaves 7 other mentions as they are: /autopilot, .autopilot/, the installed binary, md-autopilot, prose, a longer word, an unknown command', () => {
    const text = [
      'Run `/autopilot` in your agent',
      '.autopilot/flows/bugfix.md',
      '`node_modules/.bin/autopilot next --json`',
      'npm uninstall md-autopilot',
      'autopilot commits each step',
      'autopilot checks the files',
      'autopilot frobnicate',
    ].join('\n');
    let asked = 0;
    expect(withLaunch(text, NAMES, () => (asked++, NPX))).toBe(text);
    expect(asked).toBe(0);
  });

  it("puts the options that chose the repository after 4 hints' command word, not in 1 that names its own -C", () => {
    const text = 'run `autopilot next`; A person answers: autopilot decide <A|B>; autopilot fail --reason "x"; Next: autopilot -C ../y init';
    expect(withLaunch(text, NAMES, () => 'node bin/autopilot.js', ' -C ../x')).toBe(
      'run `node bin/autopilot.js next -C ../x`; A person answers: node bin/autopilot.js decide -C ../x <A|B>; node bin/autopilot.js fail -C ../x --reason "x"; Next: node bin/autopilot.js -C ../y init',
    );
  });

  it('asks for the launch once for a text of 3 hints, never for a text of none, and keeps a bare `autopilot` launch as it is', () => {
    let asked = 0;
    withLaunch('`autopilot next`, `autopilot done`, `autopilot status`', NAMES, () => (asked++, NPX));
    expect(asked).toBe(1);
    expect(withLaunch('`autopilot next`', NAMES, () => 'autopilot')).toBe('`autopilot next`');
  });
});
