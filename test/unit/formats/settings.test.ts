/** The settings file: every key read and checked, problems naming the file, and what autopilot would write reads back the same. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseYaml } from '../../../src/app/transaction/parse-yaml.js';
import { parseSettings, serializeSettings, staleAfter, type Settings } from '../../../src/formats/settings.js';
import { DEFAULT_STALE_MS } from '../../../src/limits.js';

const FILE = '.autopilot/config.yml';
const parse = (text: string, staleOverride?: number) => parseSettings(text, FILE, parseYaml, staleOverride);

describe('parseSettings', () => {
  it('reads every key', () => {
    expect(parse('lease:\n  stale_after_minutes: 5\n  remote: origin\ncommit: true\n')).toEqual({
      settings: { staleMs: 5 * 60_000, commit: 'work', remote: 'origin', remoteTimeoutMs: 5000 },
    });
  });

  it("reads the project's test command (`verify`): a command line, trimmed; anything else a problem naming the file", () => {
    const verify = (text: string) => {
      const read = parse(text);
      return 'settings' in read ? read.settings.verify : read.problem.message;
    };
    expect([verify('verify: npm test\n'), verify('verify: "go test ./..."\n'), verify('verify: none\n'), verify('')]).toEqual([
      'npm test',
      'go test ./...',
      'none',
      undefined,
    ]);
    for (const text of ['verify: 12\n', 'verify: true\n', 'verify: ""\n', 'verify: [npm, test]\n', 'verify: "a\\nb"\n'])
      expect(verify(text), text).toBe('`verify` is not a command line');
  });

  it('turns unattended takeover of the remote lease on only when asked (`remote_stale_after_minutes`)', () => {
    expect(parse('lease:\n  remote: origin\n')).toEqual({ settings: { staleMs: DEFAULT_STALE_MS, commit: 'auto', remote: 'origin', remoteTimeoutMs: 5000 } });
    expect(parse('lease:\n  remote: origin\n  remote_stale_after_minutes: 30\n')).toEqual({
      settings: { staleMs: DEFAULT_STALE_MS, commit: 'auto', remote: 'origin', remoteTimeoutMs: 5000, remoteStaleMs: 30 * 60_000 },
    });
  });

  it('gives the defaults for an empty file, or one that holds no mapping', () => {
    for (const text of ['', '# nothing yet\n', 'just text\n', '- a list\n', 'lease: soon\n'])
      expect(parse(text)).toEqual({ settings: { staleMs: DEFAULT_STALE_MS, commit: 'auto', remoteTimeoutMs: 5000 } });
  });

  it('makes progress commits by default (`auto`), off only with `commit: false`, asked for with true or evidence', () => {
    const commit = (text: string) => {
      const read = parse(text);
      return 'settings' in read ? read.settings.commit : read.problem.message;
    };
    expect([commit(''), commit('commit:\n'), commit('commit: false\n'), commit('commit: true\n'), commit('commit: evidence\n')]).toEqual([
      'auto',
      'auto',
      false,
      'work',
      'evidence',
    ]);
    // What init writes: the line commented out, so the default stands.
    expect(commit('# To turn them off, remove the # before the next line:\n# commit: false\n')).toBe('auto');
  });

  it('reads `follow_through: false` as notices off; true, or no line, as on (the default)', () => {
    const follow = (text: string) => (parse(text) as { settings: Settings }).settings.followThrough;
    expect([follow('follow_through: false\n'), follow('follow_through: true\n'), follow('')]).toEqual([false, undefined, undefined]);
  });

  it("lets an override stand in for the file's threshold, which is then not judged", () => {
    expect(parse('lease:\n  stale_after_minutes: 3\n', 60_000)).toEqual({ settings: { staleMs: 60_000, commit: 'auto', remoteTimeoutMs: 5000 } });
    expect(parse('lease:\n  stale_after_minutes: never\n', 60_000)).toEqual({ settings: { staleMs: 60_000, commit: 'auto', remoteTimeoutMs: 5000 } });
  });

  it.each([
    ['not YAML', 'lease: [\n', /^the settings are not valid YAML: /, undefined],
    ['an alias bomb', `a: &a [x]\nb: &b [${'*a,'.repeat(20)}]\n`, /^the settings are not valid YAML: /, undefined],
    ['commit: yes please', 'commit: yes please\n', /^`commit` is not true, false, work or evidence$/, 'yes please'],
    ['a remote with a space', 'lease:\n  remote: my origin\n', /^`lease.remote` is not a git remote name$/, 'my origin'],
    ['a numeric remote', 'lease:\n  remote: 12\n', /^`lease.remote` is not a git remote name$/, '12'],
    ['a threshold of zero', 'lease:\n  stale_after_minutes: 0\n', /^the lease threshold is not a number of minutes$/, '0'],
    ['a threshold in words', 'lease:\n  stale_after_minutes: ten\n', /^the lease threshold is not a number of minutes$/, 'ten'],
    ['a remote threshold below zero', 'lease:\n  remote_stale_after_minutes: -5\n', /^the lease threshold is not a number of minutes$/, '-5'],
    ['follow_through: sometimes', 'follow_through: sometimes\n', /^`follow_through` is not true or false$/, 'sometimes'],
  ])('%s: a problem naming the file', (_what, text, message, received) => {
    const parsed = parse(text);
    if (!('problem' in parsed)) throw new Error('accepted');
    expect(parsed.problem.file).toBe(FILE);
    expect(parsed.problem.message).toMatch(message);
    expect(parsed.problem.received).toBe(received);
  });
});

describe('staleAfter', () => {
  it('reads minutes, and nothing as nothing', () => {
    expect(staleAfter('2.5', '$X')).toEqual({ ms: 150_000 });
    expect(staleAfter('', '$X')).toEqual({ ms: undefined });
    expect(staleAfter(undefined, '$X')).toEqual({ ms: undefined });
    expect(staleAfter('-1', '$X')).toEqual({ problem: expect.objectContaining({ file: '$X', received: '-1' }) as unknown });
  });
});

describe('serializeSettings ∘ parseSettings', () => {
  it('writes the example of the docs', () => {
    expect(serializeSettings({ staleMs: 10 * 60_000, commit: 'work', remote: 'origin', remoteTimeoutMs: 5000 })).toBe(
      'lease:\n  stale_after_minutes: 10\n  remote: "origin"\n  remote_timeout_seconds: 5\ncommit: true\n',
    );
  });

  it('reads back whatever it writes', () => {
    const settings = fc.record(
      {
        staleMs: fc.integer({ min: 1, max: 10_000 }).map((minutes) => minutes * 60_000),
        commit: fc.constantFrom<Settings['commit']>('auto', 'work', 'evidence', false),
        remote: fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._/-]{0,99}$/),
        remoteTimeoutMs: fc.integer({ min: 1, max: 600 }).map((seconds) => seconds * 1000),
        remoteStaleMs: fc.integer({ min: 1, max: 10_000 }).map((minutes) => minutes * 60_000),
        followThrough: fc.constant<false>(false),
      },
      { requiredKeys: ['staleMs', 'commit', 'remoteTimeoutMs'] },
    );
    fc.assert(
      fc.property(settings, (s: Settings) => {
        expect(parse(serializeSettings(s))).toEqual({ settings: s });
      }),
    );
  });
});
