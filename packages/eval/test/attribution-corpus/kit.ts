// Helpers of the labelled attribution corpus: grading a fixture session, faulty tools, compactions.
import {
  type AgentEvent,
  type CompactionRecord,
  InMemoryTracer,
  type Message,
  type RunResult,
  runLoop,
  type ToolSchema,
  userMessage,
  ZERO_USAGE,
} from '@mh/core';
import { ScriptedProvider, type ScriptedTurn } from '@mh/core/testing';
import type { AttributionInput, Layer, SessionCheck } from '../../src/attribution/types.js';
import { type Check, runCheck } from '../../src/checks/check.js';
import { checkInputOf } from '../../src/checks/input.js';
import { contains } from '../../src/checks/text.js';
import {
  type FixtureSession,
  type FixtureTool,
  runFixture,
  type Turn,
} from '../session-fixture.js';

/** One labelled failure. */
export interface CorpusEntry {
  readonly name: string;
  readonly layer: Layer;
  readonly rule: string;
  build(): Promise<AttributionInput>;
}

/** The check most entries fail. */
export const ANSWER: Check = contains('42');

/** Grades a fixture session with `check` and returns the attribution input. */
export async function graded(
  session: FixtureSession,
  check: Check,
  extra: Partial<AttributionInput> = {},
): Promise<AttributionInput> {
  let verdict: SessionCheck = { status: 'skipped' };
  if (session.results.length > 0) {
    const result = await runCheck(check, checkInputOf(session.results));
    verdict = { status: result.passed ? 'passed' : 'failed', result };
  }
  return {
    results: session.results,
    events: session.events,
    spans: session.tracer.records(),
    check: verdict,
    checkName: check.name,
    facts: check.facts,
    ...extra,
  };
}

export function run(turns: readonly Turn[], tools: Record<string, FixtureTool> = {}, extra = {}) {
  return runFixture({ turns, tools, ...extra });
}

export const lookup: FixtureTool = { run: (input) => `order ${String(input.id)}: total $41` };
export const failing = (message: string): FixtureTool => ({
  run: () => {
    throw new Error(message);
  },
});

/** A `{ city: string }` schema for typed-output entries. */
const CITY: ToolSchema<{ city: string }> = {
  jsonSchema: {
    type: 'object',
    properties: { city: { type: 'string' } },
    required: ['city'],
    additionalProperties: false,
  },
  parse: (input) =>
    typeof (input as { city?: unknown } | null)?.city === 'string'
      ? { success: true, value: input as { city: string } }
      : { success: false, issues: ['city: expected string'] },
};

/**
 * A run asking for typed output (`{ city }`, native form, one retry) over the real loop, with the
 * model playing `turns`: a fixture session like `run`'s.
 */
export async function typedRun(turns: readonly ScriptedTurn[]): Promise<FixtureSession> {
  const tracer = new InMemoryTracer();
  const events: AgentEvent[] = [];
  const results: RunResult[] = [];
  for await (const event of runLoop({
    provider: new ScriptedProvider(turns, { nativeOutput: true }),
    model: 'fixture-model',
    history: [userMessage('Which city? Answer as JSON.')],
    output: { schema: CITY, maxRetries: 1 },
    tracer,
  })) {
    events.push(event);
    if (event.type === 'run-end') results.push(event.result);
  }
  return { results, events, tracer };
}

/** Adds a compaction to the last run whose originals are `originals`. */
export function compacted(session: FixtureSession, originals: readonly Message[]): FixtureSession {
  const last = session.results.at(-1) as RunResult;
  const record: CompactionRecord = {
    id: `cmp_${originals.length}_${last.runId}`,
    runId: last.runId,
    turn: 1,
    stage: 'summary',
    reason: 'context over 80% of the window',
    foldedMessageIds: originals.map((message) => message.id),
    trimmedMessageIds: [],
    summaryMessageId: 'msg_summary',
    tokensBefore: 9000,
    tokensAfter: 1200,
    thresholdTokens: 8000,
    usage: ZERO_USAGE,
    costUsd: 0,
    durationMs: 3,
  };
  const event: AgentEvent = { type: 'compaction', record, originals };
  return {
    ...session,
    results: [...session.results.slice(0, -1), { ...last, compactions: [record] }],
    events: [event, ...session.events],
  };
}

export function folded(id: string, text: string): Message {
  return {
    id,
    role: 'user',
    content: [
      {
        type: 'tool_result',
        toolUseId: `t_${id}`,
        content: [{ type: 'text', text }],
        isError: false,
      },
    ],
  };
}
