import type { Tool } from '@mh/core';
import { calculatorTool, defineTool, z } from '@mh/tools';

/** The orders the demo's `lookup_order` tool knows. */
export const ORDERS: Readonly<
  Record<string, { status: string; total: string; items: number; customer: string }>
> = {
  'ORD-7731': { status: 'shipped', total: '$41.50', items: 3, customer: 'Ana Lima' },
  'ORD-1002': { status: 'processing', total: '$12.00', items: 1, customer: 'Tom Berg' },
  'ORD-2040': { status: 'delivered', total: '$87.25', items: 5, customer: 'Li Wei' },
  'ORD-5150': { status: 'shipped', total: '$19.99', items: 2, customer: 'Margaret Hale' },
};

/** The settings files the demo's `find_setting` tool searches. */
export const SETTINGS: Readonly<Record<string, string>> = {
  retry: 'config/retry.json: "maxRetries": 5, "backoffMs": 250',
  timeout: 'config/http.json: "timeoutMs": 30000',
};

/** What `lookup_order` answers for an order id; throws for an unknown id. */
export function describeOrder(id: string): string {
  const order = ORDERS[id];
  if (!order) throw new Error(`no order ${id}`);
  return `${id}: status ${order.status}, ${order.items} item(s), total ${order.total}, customer ${order.customer}`;
}

/**
 * `lookup_order`. Harness v1 names its argument `id`; v2 renames it `order_id` (the regression the
 * demo's comparison catches: the model keeps sending `id`).
 */
function lookupOrder(argument: 'id' | 'order_id', describe: (id: string) => string): Tool {
  const input =
    argument === 'id'
      ? z.object({ id: z.string().describe('Order id, e.g. ORD-1234') })
      : z.object({ order_id: z.string().describe('Order id, e.g. ORD-1234') });
  return defineTool({
    name: 'lookup_order',
    description: 'Look up an order by its id: status, item count, total and customer.',
    input,
    permission: 'read',
    idempotent: true,
    run: (args) => describe((args as Record<string, string>)[argument] ?? ''),
  });
}

const findSetting = defineTool({
  name: 'find_setting',
  description: 'Find which configuration file sets a setting, and its value.',
  input: z.object({ key: z.string().describe('Setting name, e.g. retry') }),
  permission: 'read',
  idempotent: true,
  run: ({ key }) => SETTINGS[key] ?? `no setting named ${key}`,
});

const lookupInvoice = defineTool({
  name: 'lookup_invoice',
  description: 'Look up an invoice by its id in the archive.',
  input: z.object({ id: z.string() }),
  permission: 'read',
  run: ({ id }) => {
    // The archive service is down in this demo: every call fails, a tool-layer failure.
    throw new Error(`archive unavailable: invoice ${id} could not be fetched (HTTP 503)`);
  },
});

const refundOrder = defineTool({
  name: 'refund_order',
  description: 'Refund an order by its id.',
  input: z.object({ id: z.string() }),
  permission: 'write',
  run: ({ id }) => `refund of ${id} queued`,
});

/** The demo harness versions: v2 renames an argument and shortens the system prompt. */
export const HARNESS_VERSIONS = ['v1', 'v2'] as const;
/** A demo harness version. */
export type HarnessVersion = (typeof HARNESS_VERSIONS)[number];

/** Changes to the demo tools, for tests that seed a regression in a tool's output. */
export interface DemoToolOptions {
  /** What `lookup_order` answers (default `describeOrder`). */
  readonly describeOrder?: (id: string) => string;
}

/** The tools of a harness version, in a stable order. */
export function demoTools(version: HarnessVersion, options: DemoToolOptions = {}): Tool[] {
  return [
    calculatorTool() as Tool,
    lookupOrder(version === 'v1' ? 'id' : 'order_id', options.describeOrder ?? describeOrder),
    findSetting as Tool,
    lookupInvoice as Tool,
    refundOrder as Tool,
  ];
}

/** The system prompt of a harness version: v2 lost the answer-line instruction. */
export function demoSystem(version: HarnessVersion): string {
  const base = 'You are a support agent for an online shop. Use the tools; never guess numbers.';
  return version === 'v1' ? `${base} End every final answer with a line "ANSWER: <answer>".` : base;
}
