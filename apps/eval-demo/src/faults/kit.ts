// Building blocks of the labelled fault corpus: an sdk Agent on a scripted model with real tools
// from @mh/tools, and the faults injected into it.
import type { InMemoryTracer, Tool } from '@mh/core';
import { type Check, contains, type EvalAgent, EvalCase, type Layer } from '@mh/eval';
import { type ScriptStep, scripted } from '@mh/providers';
import { Agent, type AgentOptions, PricingTable } from '@mh/sdk';
import { calculatorTool, defineTool, z } from '@mh/tools';

/** What a fault's agent is built with. */
export interface FaultContext {
  readonly tracer: InMemoryTracer;
  readonly signal: AbortSignal;
  /** A scratch folder (cassettes of the drift faults). */
  readonly dir: string;
}

/** One injected fault: a case, the agent that shows the fault, and the layer it belongs to. */
export interface Fault {
  /** The layer the injected fault belongs to (the ground truth). */
  readonly label: Layer;
  /** The case (its name names the fault). */
  readonly evalCase: EvalCase;
  /** Builds the agent (may throw: a factory fault). */
  agent(context: FaultContext): EvalAgent | Promise<EvalAgent>;
  /** True for a fault whose symptoms also fit another layer (reported apart). */
  readonly confounded?: boolean;
}

export const MODEL = 'fault-model';
export const PRICING: PricingTable = new PricingTable({
  [MODEL]: { inputPerMTok: 3, outputPerMTok: 15 },
});

/** The orders `lookup` knows. */
const ORDERS: Record<string, string> = {
  'A-1': 'order A-1: 2 items, total $41.50, customer Dana Reyes, gift wrap: blue ribbon',
  'A-2': 'order A-2: 1 item, total $9.99, customer Sam Ortiz',
};

/** `lookup`: reads an order. */
export const lookupTool: Tool = defineTool({
  name: 'lookup',
  description: 'Look up an order by id.',
  input: z.object({ id: z.string() }),
  permission: 'read',
  run: ({ id }) => {
    const order = ORDERS[id];
    if (!order) throw new Error(`order ${id} not found`);
    return order;
  },
}) as Tool;

/** `refund`: a write tool (denied unless granted). */
export const refundTool: Tool = defineTool({
  name: 'refund',
  description: 'Refund an order.',
  input: z.object({ id: z.string() }),
  permission: 'write',
  run: ({ id }) => `refunded ${id}`,
}) as Tool;

/** A tool that always throws `message`. */
export function brokenTool(name: string, message: string): Tool {
  return defineTool({
    name,
    description: `The ${name} service.`,
    input: z.object({ q: z.string() }),
    permission: 'read',
    run: () => {
      throw new Error(message);
    },
  }) as Tool;
}

/** A tool slower than its own timeout. */
export function slowTool(name: string): Tool {
  return defineTool({
    name,
    description: `The slow ${name} service.`,
    input: z.object({ q: z.string() }),
    permission: 'read',
    timeoutMs: 20,
    run: (_input, { signal }) =>
      new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => resolve('late'), 2_000);
        signal.addEventListener('abort', () => {
          clearTimeout(timer);
          reject(signal.reason);
        });
      }),
  }) as Tool;
}

/**
 * `lookup` that fails its first `failures` calls (throws `message`, or with `message` undefined
 * outlasts its 20 ms timeout) and then works: a flaky service the model can recover from by
 * calling again. Build one per session: it counts its calls.
 */
export function flakyLookup(failures: number, message?: string): Tool {
  let calls = 0;
  return defineTool({
    name: 'lookup',
    description: 'Look up an order by id.',
    input: z.object({ id: z.string() }),
    permission: 'read',
    timeoutMs: 20,
    run: ({ id }, { signal }) => {
      calls++;
      if (calls > failures) {
        const order = ORDERS[id];
        if (!order) throw new Error(`order ${id} not found`);
        return order;
      }
      if (message !== undefined) throw new Error(message);
      return new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => resolve('late'), 2_000);
        signal.addEventListener('abort', () => {
          clearTimeout(timer);
          reject(signal.reason);
        });
      });
    },
  }) as Tool;
}

/** The default tools: calculator, lookup and refund. */
export const TOOLS: readonly Tool[] = [calculatorTool() as Tool, lookupTool, refundTool];

/** An sdk Agent on a scripted model (the last step repeats). */
export function agentOf(
  context: FaultContext,
  steps: readonly ScriptStep[],
  options: Partial<AgentOptions> = {},
): Agent {
  return new Agent({
    provider: scripted(steps, { whenExhausted: 'repeat-last', recordRequests: false }),
    model: MODEL,
    system: 'Answer questions about orders. End with a line "ANSWER: <answer>".',
    tools: TOOLS,
    tracer: context.tracer,
    pricing: PRICING,
    ...options,
  });
}

/** A fault case named `name` with one prompt (or several) and `check` (default: contains '$41.50'). */
export function faultCase(
  name: string,
  prompt: string | readonly string[],
  check: Check = contains('$41.50'),
  tags?: string[],
): EvalCase {
  return typeof prompt === 'string'
    ? new EvalCase({ name, prompt, check, ...(tags ? { tags } : {}) })
    : new EvalCase({ name, prompts: prompt, check, ...(tags ? { tags } : {}) });
}

/** The steps of a model that looks order A-1 up and answers with what it read. */
export function lookupThenAnswer(
  say: (result: string) => string = (result) => `Total: ${result.match(/\$[\d.]+/)?.[0]}`,
): ScriptStep[] {
  return [
    { toolCalls: [{ name: 'lookup', input: { id: 'A-1' } }] },
    (request) => {
      const last = request.messages.at(-1);
      const block = last?.content.find((item) => item.type === 'tool_result');
      const text =
        block?.type === 'tool_result'
          ? block.content.map((part) => (part.type === 'text' ? part.text : '')).join('')
          : '';
      return { text: say(text) };
    },
  ];
}

/** The question most faults ask. */
export const QUESTION = 'What is the total of order A-1?';

/** The first dollar amount in `result` ('?' when none). */
export const totalOf = (result: string): string => result.match(/\$[\d.]+/)?.[0] ?? '?';

/** A scripted step that calls `lookup` for order `id`. */
export const lookupCall = (id: string) => ({ toolCalls: [{ name: 'lookup', input: { id } }] });
