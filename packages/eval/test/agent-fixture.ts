import {
  type CompactionOptions,
  defaultPricing,
  InMemoryTracer,
  metricsFromSpans,
  type Permission,
  type Provider,
  type RunResult,
  type SpanMetrics,
} from '@mh/core';
import { type ScriptStep, scripted } from '@mh/providers';
import { Agent } from '@mh/sdk';
import { calculatorTool, defineTool, ToolExecutor, z } from '@mh/tools';
import type { Cassette, CassetteKey } from '../src/index.js';

/** What the agents of these tests may vary between recording and replay. */
export interface AgentSettings {
  readonly system?: string;
  readonly lookupDescription?: string;
  readonly lookupQueryType?: 'string' | 'number';
  readonly maxTurns?: number;
  readonly maxOutputTokens?: number;
  readonly compaction?: false | CompactionOptions;
  /** Permissions granted to the default policy (default `['write']`, which `lookup` needs). */
  readonly grants?: readonly Permission[];
  /** The permission `lookup` declares (default `write`). */
  readonly lookupPermission?: Permission;
  /** What `lookup` returns (default `lookupText`): a changed tool. */
  readonly lookupText?: (query: string) => string;
  /** Whether `lookup` declares itself deterministic (a pure function of its input). */
  readonly lookupDeterministic?: boolean;
}

export const SYSTEM = 'You answer questions about orders. Use lookup.';

/** Counts the real runs of the `lookup` tool (it has side effects: permission `write`). */
export const lookupRuns = { count: 0 };

/** A long record, so that a compaction has something to trim. */
export function lookupText(query: string): string {
  return `Order ${query}: status shipped. ${'History line with carrier scans and timestamps. '.repeat(40)}`;
}

function lookupTool(settings: AgentSettings) {
  const query = settings.lookupQueryType === 'number' ? z.number() : z.string();
  return defineTool({
    name: 'lookup',
    description: settings.lookupDescription ?? 'Looks up an order by its number.',
    input: z.object({ query }),
    permission: settings.lookupPermission ?? 'write',
    ...(settings.lookupDeterministic ? { deterministic: true } : {}),
    run: ({ query: value }) => {
      lookupRuns.count++;
      return (settings.lookupText ?? lookupText)(String(value));
    },
  });
}

/** A three-turn script: look up two orders, compute, then answer; with realistic usage. */
export function script(): ScriptStep[] {
  const usage = { inputTokens: 800, outputTokens: 40, cacheReadTokens: 2000, cacheWriteTokens: 0 };
  return [
    {
      text: 'Let me look.',
      toolCalls: [{ id: 'toolu_1', name: 'lookup', input: { query: 'A-1' } }],
      usage,
    },
    {
      toolCalls: [
        { id: 'toolu_2', name: 'lookup', input: { query: 'A-2' } },
        { id: 'toolu_3', name: 'calculator', input: { expression: '19.5 + 22.5' } },
      ],
      usage,
    },
    { text: 'Both orders shipped; together they cost 42.', usage },
  ];
}

/** The recording's provider: the scripted model (with a fresh script). */
export function scriptedModel(): Provider {
  return scripted(script());
}

/** An agent on the cassette's provider and tools for `key`, traced in memory. */
export function cassetteAgent(
  cassette: Cassette,
  key: CassetteKey,
  inner: Provider | undefined,
  settings: AgentSettings = {},
): { agent: Agent; tracer: InMemoryTracer } {
  const tracer = new InMemoryTracer();
  const executor = new ToolExecutor({
    tools: [lookupTool(settings), calculatorTool()],
    grants: [...(settings.grants ?? ['write'])],
  });
  const agent = new Agent({
    provider: cassette.provider(inner, key),
    tools: cassette.tools(executor, key),
    model: 'claude-sonnet-4-5',
    system: settings.system ?? SYSTEM,
    limits: { maxTurns: settings.maxTurns ?? 10 },
    maxOutputTokens: settings.maxOutputTokens ?? 1024,
    compaction: settings.compaction ?? false,
    tracer,
    pricing: defaultPricing,
  });
  return { agent, tracer };
}

/** What a replay must reproduce of a run. */
export function observed(
  result: RunResult,
  tracer: InMemoryTracer,
): {
  text: string;
  status: string;
  turns: number;
  usage: RunResult['usage'];
  costUsd: number;
  metrics: Pick<SpanMetrics, 'tokens' | 'costUsd' | 'modelCalls' | 'toolCalls' | 'toolErrors'>;
} {
  const metrics = metricsFromSpans(tracer.records());
  return {
    text: result.text,
    status: result.status,
    turns: result.turns,
    usage: result.usage,
    costUsd: result.costUsd,
    metrics: {
      tokens: metrics.tokens,
      costUsd: metrics.costUsd,
      modelCalls: metrics.modelCalls,
      toolCalls: metrics.toolCalls,
      toolErrors: metrics.toolErrors,
    },
  };
}

export const PROMPT = 'What is the status of orders A-1 and A-2, and their total?';
