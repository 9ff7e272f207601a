/** This machine's notes of other sessions' leases: read back as written, per observing machine, bounded; anything else is no notes. */
import { describe, expect, it } from 'vitest';
import { noteOf, parseSightings, serializeSightings, withSighting, type Sightings } from '../../../src/formats/lease-sightings.js';
import { SIGHTINGS_MAX_MACHINES, SIGHTINGS_MAX_PLACES } from '../../../src/limits.js';

const FILE = '/tmp/autopilot-0/lease-sightings/_repo.json';
const note = (mark: string, since = '2026-11-26T10:00:00.000Z') => ({ mark, since });

describe('lease sightings', () => {
  it('read back what is written, each machine its own notes', () => {
    const notes: Sightings = { m1: { 'lease.json': note('A m1 t0 h0 #3') }, m2: { 'remote:origin': note('0123abcd') } };
    expect(parseSightings(serializeSightings(notes), FILE)).toEqual({ sightings: notes });
  });

  it('one machine replaces its own note of a place, and never touches another machine’s', () => {
    const notes: Sightings = { m1: { 'lease.json': note('old') }, m2: { 'lease.json': note('theirs') } };
    const next = withSighting(notes, 'm1', 'lease.json', note('new', '2026-11-26T11:00:00.000Z'));
    expect(next).toEqual({ m1: { 'lease.json': note('new', '2026-11-26T11:00:00.000Z') }, m2: { 'lease.json': note('theirs') } });
  });

  it(`keeps at most ${SIGHTINGS_MAX_MACHINES} machines (this one first, then the most recent) and ${SIGHTINGS_MAX_PLACES} places a machine`, () => {
    let notes: Sightings = {};
    for (let i = 0; i < 20; i++) notes = withSighting(notes, `m${i}`, 'lease.json', note('x', new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString()));
    notes = withSighting(notes, 'm0', 'lease.json', note('y', '2025-01-01T00:00:00.000Z'));
    expect(Object.keys(notes)).toEqual(['m0', 'm19', 'm18', 'm17', 'm16', 'm15', 'm14', 'm13']);
    for (let i = 0; i < 20; i++) notes = withSighting(notes, 'm0', `remote:r${i}`, note('z'));
    expect(Object.keys(notes.m0!)).toHaveLength(SIGHTINGS_MAX_PLACES);
    expect(Object.keys(notes.m0!)[0]).toBe('remote:r19');
  });

  it.each([
    ['not JSON', '{', 'not lease sightings'],
    ['an array', '[]', 'not lease sightings'],
    ['null', 'null', 'not lease sightings'],
  ])('%s: a problem (the caller reads it as no notes)', (_what, text, message) => {
    expect(parseSightings(text, FILE)).toEqual({ problem: expect.objectContaining({ file: FILE, message }) });
  });

  it('a note that is not one is no note; the others are read', () => {
    const text = JSON.stringify({ m1: { a: note('ok'), b: { mark: 'x', since: 'not a time' }, c: 'junk' }, m2: 7 });
    const read = parseSightings(text, FILE);
    if (!('sightings' in read)) throw new Error('not read');
    expect(['a', 'b', 'c', 'd'].map((place) => noteOf(read.sightings, 'm1', place))).toEqual([note('ok'), undefined, undefined, undefined]);
    expect(noteOf(read.sightings, 'm2', 'a')).toBeUndefined();
    // Written again, a machine whose notes were not an object starts afresh.
    expect(withSighting(read.sightings, 'm2', 'a', note('new'))).toMatchObject({ m2: { a: note('new') } });
  });
});
