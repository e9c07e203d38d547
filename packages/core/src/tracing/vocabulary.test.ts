import { describe, expect, it } from 'vitest';
import { SPAN_NAMES } from '../ports/tracer.js';
import { GEN_AI_OPERATIONS, SPAN_ATTRIBUTES, SPAN_EVENTS } from './vocabulary.js';

describe('SPAN_ATTRIBUTES', () => {
  it('names every key once', () => {
    const values = Object.values(SPAN_ATTRIBUTES);
    expect(new Set(values).size).toBe(values.length);
  });

  it('uses only the GenAI conventions, error.type and our mh. prefix', () => {
    for (const key of Object.values(SPAN_ATTRIBUTES)) {
      expect(key).toMatch(/^(gen_ai\.[a-z_.]+|error\.type|mh\.[a-z_.]+)$/);
    }
  });

  it('emits the latest GenAI names, not the deprecated ones', () => {
    const values: readonly string[] = Object.values(SPAN_ATTRIBUTES);
    for (const old of [
      'gen_ai.system',
      'gen_ai.usage.prompt_tokens',
      'gen_ai.usage.completion_tokens',
    ])
      expect(values).not.toContain(old);
  });
});

describe('SPAN_NAMES, SPAN_EVENTS and GEN_AI_OPERATIONS', () => {
  it('are frozen', () => {
    for (const table of [SPAN_NAMES, SPAN_EVENTS, GEN_AI_OPERATIONS, SPAN_ATTRIBUTES])
      expect(Object.isFrozen(table)).toBe(true);
  });
});
