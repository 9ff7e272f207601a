/**
 * The flow cache: its file reads back as written, anything else is a problem
 * naming the file; and since it is a file in the repository, an entry is used
 * only if it is what the parser would have written.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  cacheKey,
  FLOW_CACHE_FORMAT,
  fromCached,
  isCachedParse,
  parseFlowCache,
  serializeFlowCache,
  toCached,
  type FlowCache,
} from '../../../src/formats/flow-cache.js';
import { builtInFlow } from '../../helpers/engine.js';

const FILE = '_docs/_autopilot/cache/flows.json';

const entry = () => JSON.parse(JSON.stringify(toCached({ flow: builtInFlow('greenfield'), problems: [] }))) as { flow: Record<string, unknown> };

describe('isCachedParse', () => {
  it('takes what the parser writes: a flow, or problems', () => {
    expect(isCachedParse(entry(), 'greenfield')).toBe(true);
    expect(isCachedParse(toCached({ problems: [{ file: 'x.md', line: 2, message: 'bad', expected: 'good', received: 'bad' }] }), 'x')).toBe(true);
  });

  it('refuses an entry made for another id, and anything that is not an entry', () => {
    expect(isCachedParse(entry(), 'other')).toBe(false);
    for (const junk of [null, 42, 'x', [], {}, { flow: null }, { problems: 'x' }, { problems: [] }, { problems: [{}] }])
      expect(isCachedParse(junk, 'greenfield')).toBe(false);
  });

  it('refuses a flow of the wrong shape, or one the parser would have refused', () => {
    const damage: ((flow: Record<string, unknown>) => void)[] = [
      (f) => (f.steps = 'steps'),
      (f) => (f.steps = []),
      (f) => ((f.steps as Record<string, unknown>[])[0]!.number = 2),
      (f) => ((f.steps as Record<string, unknown>[])[0]!.doneWhen = ['../../etc/passwd']),
      (f) => ((f.steps as Record<string, unknown>[])[0]!.then = { kind: 'jump' }),
      (f) => ((f.steps as Record<string, unknown>[])[1]!.then = { kind: 'decision', id: 'undeclared' }),
      (f) => (f.detect = { any: '**', none: [] }),
      (f) => (f.decisions = { 'research-round': { id: 'research-round' } }),
      (f) => delete f.title,
      (f) => (f.checkpointBefore = 'Deploy'),
      (f) => (f.checkpointBefore = [{ step: 'Deploy' }]),
      (f) => (f.checkpointBefore = [{ step: '', line: 7 }]),
      (f) => (f.checkpointBefore = [{ step: 'Nope', line: 7 }]),
    ];
    for (const [i, change] of damage.entries()) {
      const damaged = entry();
      change(damaged.flow);
      expect(isCachedParse(damaged, 'greenfield'), `damage ${i}`).toBe(false);
    }
  });

  it('takes a flow cached or pinned by an autopilot older than `checkpoint_before`: without the key, it names no step', () => {
    const older = entry();
    expect(older.flow.checkpointBefore).toEqual([{ step: 'Deploy', line: 7 }]);
    delete older.flow.checkpointBefore;
    expect(isCachedParse(older, 'greenfield')).toBe(true);
  });
});

describe('FLOW_CACHE_FORMAT', () => {
  it('is 3: a format-2 cache may hold `checkpoint_before` refused as an unknown key, so it is read as another format', () => {
    expect(FLOW_CACHE_FORMAT).toBe(3);
    expect(parseFlowCache('{"format":2,"entries":{}}', FILE)).toMatchObject({
      problem: { message: 'the flow cache is of another format' },
    });
  });
});

describe('parseFlowCache', () => {
  it('reads back the entries it writes, unchecked', () => {
    const cache: FlowCache = {
      entries: new Map<string, unknown>([
        [cacheKey('greenfield', 'abc'), entry()],
        ['x:1', 'junk'],
      ]),
      changed: true,
    };
    const text = serializeFlowCache(cache);
    expect(text.endsWith('}\n')).toBe(true);
    expect(parseFlowCache(text, FILE)).toEqual({ cache: { entries: cache.entries, changed: false } });
  });

  it('reads back any entries', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (entries) => {
        const cache: FlowCache = { entries: new Map(Object.entries(entries)), changed: false };
        const parsed = parseFlowCache(serializeFlowCache(cache), FILE);
        expect('cache' in parsed && Object.fromEntries(parsed.cache.entries)).toEqual(JSON.parse(JSON.stringify(entries)));
      }),
    );
  });

  it.each([
    ['not JSON', '{"format":', 'the flow cache is not JSON'],
    ['null', 'null', 'the flow cache is of another format'],
    ['an older format', '{"format":1,"entries":{}}', 'the flow cache is of another format'],
    ['no entries', `{"format":${FLOW_CACHE_FORMAT}}`, 'the flow cache has no entries'],
    ['entries as a list', `{"format":${FLOW_CACHE_FORMAT},"entries":[]}`, 'the flow cache has no entries'],
  ])('%s: a problem naming the file', (_what, text, message) => {
    expect(parseFlowCache(text, FILE)).toEqual({ problem: expect.objectContaining({ file: FILE, message }) as unknown });
  });
});

describe('toCached ∘ fromCached', () => {
  it('gives back the parse, read from where the file is now', () => {
    const flow = builtInFlow('greenfield');
    expect(fromCached(toCached({ flow, problems: [] }), flow.file)).toEqual({ flow, problems: [] });
    const problems = [{ file: 'a.md', line: 3, message: 'bad', expected: 'good' }];
    expect(fromCached(toCached({ problems }), 'b.md')).toEqual({ problems: [{ ...problems[0], file: 'b.md' }] });
  });
});
