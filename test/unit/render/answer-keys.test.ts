/** The output schemas the MCP tool list declares name exactly the keys the contract's schemas require. */
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { ANSWER_KEYS } from '../../../src/render/answer-keys.js';
import { ANSWERS, type AnswerName } from '../../../src/render/answers.js';

/** The keys a schema requires: those `undefined` does not satisfy. */
const required = (schema: z.ZodObject) =>
  Object.entries(schema.shape)
    .filter(([, field]) => !(field as z.ZodType).safeParse(undefined).success)
    .map(([key]) => key);

describe('the answer keys of the MCP tool list', () => {
  it(`are the required keys of each of the ${Object.keys(ANSWERS).length} answers' schemas, in their order`, () => {
    expect(Object.keys(ANSWER_KEYS).sort()).toEqual(Object.keys(ANSWERS).sort());
    for (const name of Object.keys(ANSWERS) as AnswerName[]) expect([...ANSWER_KEYS[name]], name).toEqual(required(ANSWERS[name] as z.ZodObject));
  });
});
