import {
  type OutputOptions,
  type ParseResult,
  type Provider,
  type RunResult,
  runLoop,
  type ToolSchema,
  userMessage,
} from '@mh/core';
import { ScriptedProvider, type ScriptedTurn } from '@mh/core/testing';
import { describe, expect, it } from 'vitest';
import { forbiddenProvider, tempCassette } from '../../test/helpers.js';
import { openCassette } from '../cassette/cassette.js';
import type { ReplayProvider } from './provider.js';

const KEY = { case: 'city', repeat: 0 };

/** A schema over `fields` (all required strings), hand-written like any ToolSchema. */
function schemaOf(fields: readonly string[]): ToolSchema<Record<string, string>> {
  return {
    jsonSchema: {
      type: 'object',
      properties: Object.fromEntries(fields.map((field) => [field, { type: 'string' }])),
      required: [...fields],
      additionalProperties: false,
    },
    parse(input: unknown): ParseResult<Record<string, string>> {
      const value = input as Record<string, unknown>;
      const missing = fields.filter((field) => typeof value?.[field] !== 'string');
      return missing.length === 0
        ? { success: true, value: value as Record<string, string> }
        : { success: false, issues: missing.map((field) => `${field}: expected string`) };
    },
  };
}

async function run(provider: Provider, output: OutputOptions): Promise<RunResult> {
  const loop = runLoop({
    provider,
    model: 'claude-sonnet-4-5',
    history: [userMessage('Capital of France?', 'u0')],
    output,
  });
  for (;;) {
    const next = await loop.next();
    if (next.done) return next.value;
  }
}

async function record(path: string, script: readonly ScriptedTurn[], nativeOutput: boolean) {
  const cassette = await openCassette(path, { mode: 'record' });
  const provider = cassette.provider(new ScriptedProvider(script, { nativeOutput }), KEY);
  expect(provider.nativeOutput).toBe(nativeOutput);
  const result = await run(provider, { schema: schemaOf(['city']) });
  await cassette.close();
  return result;
}

async function replay(path: string, output: OutputOptions) {
  const cassette = await openCassette(path, { mode: 'lockdown' });
  const provider = cassette.provider(forbiddenProvider, KEY) as ReplayProvider;
  const result = await run(provider, output);
  return { provider, result, drifts: provider.finish() };
}

describe('typed output in cassettes', () => {
  for (const [form, native, script] of [
    ['native', true, [{ text: '{"city":"Paris"}' }]],
    [
      'final tool',
      false,
      [
        { toolCalls: [{ id: 'c1', name: 'final_answer', input: { town: 'Paris' } }] },
        { toolCalls: [{ id: 'c2', name: 'final_answer', input: { city: 'Paris' } }] },
      ],
    ],
  ] as const) {
    it(`replays a ${form} answer (with its correction) in the recorded form, without drift`, async () => {
      const path = tempCassette();
      const recorded = await record(path, script, native);
      expect(recorded.output).toEqual({ city: 'Paris' });
      const { provider, result, drifts } = await replay(path, { schema: schemaOf(['city']) });
      expect(provider.nativeOutput).toBe(native);
      expect(result.output).toEqual({ city: 'Paris' });
      expect(result.turns).toBe(recorded.turns);
      expect(drifts).toEqual([]);
    });

    it(`reports a changed output schema as drift (${form})`, async () => {
      const path = tempCassette();
      await record(path, script, native);
      const { drifts } = await replay(path, { schema: schemaOf(['city', 'country']) });
      expect(drifts.length).toBeGreaterThan(0);
      const paths = drifts.map((drift) => JSON.stringify(drift));
      // Native: the request's `output` format changed; final tool: the tool's input schema did.
      expect(paths.join('\n')).toMatch(native ? /"output\.schema/ : /"tools\[0\]\.inputSchema/);
    });
  }
});
