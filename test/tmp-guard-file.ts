/**
 * Around each test file: a marker (`_docs`, `.autopilot`, `.git`) that
 * appears in the temporary folder or above it while the file runs fails the
 * file, so the summary itself says which file ran a command outside its test
 * repository (`tmp-guard.ts`).
 */
import { afterAll, beforeAll } from 'vitest';
import { appeared, strayMarkers } from './tmp-guard.js';

let before = new Set<string>();

beforeAll(() => {
  before = new Set(strayMarkers());
});

afterAll(() => {
  const error = appeared(before, 'this test file');
  if (error) throw error;
});
