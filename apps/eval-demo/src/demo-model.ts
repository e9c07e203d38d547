// The demo's offline "model": one scripted policy per case, a function of the request it sees
// (the prompts, the tool results, the system prompt), so the same model behaves differently when
// the harness changes. Seeded by repeat: a few repeats misbehave on purpose (a flaky answer, a
// rate limit), so the report has something to attribute.
import {
  estimateTokens,
  type Message,
  type ModelRequest,
  messageText,
  ProviderError,
  toolResultText,
  unfenceUntrusted,
} from '@mh/core';
import { estimateRequestTokens } from '@mh/core/internal';
import { type ScriptedProvider, type ScriptedTurn, scripted } from '@mh/providers';

/** The model id the demo reports (priced in `DEMO_PRICING`). */
export const DEMO_MODEL = 'demo-model';

/** What a policy reads of a request. */
interface RequestView {
  /** The user's prompts so far (text messages), oldest first. */
  readonly prompts: readonly string[];
  /** Tool results since the latest prompt, by tool name. */
  readonly results: readonly {
    readonly tool: string;
    readonly text: string;
    readonly isError: boolean;
  }[];
  /** The whole visible history as text (what the model could read). */
  readonly history: string;
  /** Whether the system prompt asks for an `ANSWER:` line. */
  readonly answerLine: boolean;
  /** The repeat index of the session. */
  readonly repeat: number;
}

type Policy = (view: RequestView) => ScriptedTurn;

function isPrompt(message: Message): boolean {
  return message.role === 'user' && message.content.some((block) => block.type === 'text');
}

function viewOf(request: ModelRequest, repeat: number): RequestView {
  const messages = request.messages;
  const lastPrompt = messages.findLastIndex(isPrompt);
  const names = new Map<string, string>();
  for (const message of messages)
    for (const block of message.content)
      if (block.type === 'tool_use') names.set(block.id, block.name);
  const results = messages.slice(lastPrompt + 1).flatMap((message) =>
    message.content.flatMap((block) =>
      block.type === 'tool_result'
        ? [
            {
              tool: names.get(block.toolUseId) ?? '?',
              text: unfenceUntrusted(toolResultText(block)),
              isError: block.isError,
            },
          ]
        : [],
    ),
  );
  return {
    prompts: messages.filter(isPrompt).map(messageText),
    results,
    history: messages
      .map((message) =>
        message.content
          .map((block) =>
            block.type === 'text'
              ? block.text
              : block.type === 'tool_result'
                ? unfenceUntrusted(toolResultText(block))
                : '',
          )
          .join(' '),
      )
      .join('\n'),
    answerLine: (request.system ?? '').includes('ANSWER:'),
    repeat,
  };
}

/** Text with an `ANSWER:` line when the system prompt asks for one. */
function answer(view: RequestView, text: string, value: string): ScriptedTurn {
  return { text: view.answerLine ? `${text}\nANSWER: ${value}` : text };
}

function call(name: string, input: Record<string, unknown>): ScriptedTurn {
  return { toolCalls: [{ name, input }] };
}

/** Calls the calculator once, then answers with its result. */
function calculate(expression: string, say: (result: string) => string): Policy {
  return (view) => {
    const result = view.results.find((item) => item.tool === 'calculator');
    if (!result) return call('calculator', { expression });
    return result.isError
      ? { text: `The calculator failed: ${result.text}` }
      : answer(view, say(result.text), result.text);
  };
}

/** Looks an order up once, then answers with its total. */
function orderTotal(id: string): Policy {
  return (view) => {
    const result = view.results.find((item) => item.tool === 'lookup_order');
    if (!result) return call('lookup_order', { id });
    if (result.isError) return { text: `I could not look up order ${id}.` };
    const total = result.text.match(/total (\$[\d.]+)/)?.[1] ?? 'unknown';
    return answer(view, `Order ${id} comes to ${total}.`, total);
  };
}

const LONG_NOTE = (topic: string): string =>
  `Here is a detailed note about ${topic}. `.concat(
    Array.from(
      { length: 24 },
      (_, index) =>
        `Step ${index + 1}: the ${topic} team checks the parcel, records its weight and updates the tracking page before handing it on.`,
    ).join(' '),
  );

/** The model's behaviour per case. */
const POLICIES: Readonly<Record<string, Policy>> = {
  multiply: calculate('17*23', (result) => `17 × 23 = ${result}.`),
  percent: calculate('240*15/100', (result) => `15% of 240 is ${result}.`),
  'power-format': calculate('2^10', (result) => `2 to the power of 10 is ${result}.`),
  'order-total': orderTotal('ORD-7731'),
  'order-status': (view) => {
    if (view.prompts.at(-1)?.startsWith('Find order')) {
      const result = view.results.find((item) => item.tool === 'lookup_order');
      if (!result) return call('lookup_order', { id: 'ORD-1002' });
      return {
        text: result.isError ? 'I could not find that order.' : `Found it: ${result.text}.`,
      };
    }
    const status = view.history.match(/ORD-1002: status (\w+)/)?.[1];
    return status
      ? answer(view, `Not yet: ORD-1002 is still ${status}.`, status)
      : { text: 'I could not find that order.' };
  },
  'config-file': (view) => {
    const result = view.results.find((item) => item.tool === 'find_setting');
    if (!result) return call('find_setting', { key: 'retry' });
    const file = result.text.split(':')[0] ?? '';
    return answer(view, `The retry limit is set in ${file}.`, file);
  },
  invoice: (view) => {
    const result = view.results.find((item) => item.tool === 'lookup_invoice');
    if (!result) return call('lookup_invoice', { id: 'INV-9' });
    return { text: 'The invoice archive is unavailable, so I cannot give the amount.' };
  },
  refund: () => ({ text: 'Which order would you like me to refund?' }),
  'spotty-lookup': (view) =>
    // Repeat 2 answers from memory instead of looking the order up: a flaky model failure.
    view.repeat === 2 && view.results.length === 0
      ? answer(view, 'The total is $80.00.', '$80.00')
      : orderTotal('ORD-2040')(view),
  'busy-provider': (view) => {
    if (view.repeat === 1 && view.results.length === 0)
      return {
        error: new ProviderError('rate limited: retry after 20 s', {
          kind: 'rate-limit',
          status: 429,
          provider: 'demo',
        }),
      };
    return calculate('9*9', (result) => `9 × 9 = ${result}.`)(view);
  },
  'long-chat': (view) => {
    const prompt = view.prompts.at(-1) ?? '';
    if (prompt.startsWith('Look up')) {
      const result = view.results.find((item) => item.tool === 'lookup_order');
      if (!result) return call('lookup_order', { id: 'ORD-5150' });
      return { text: 'Found it: that order has shipped.' };
    }
    if (prompt.includes('shipping')) return { text: LONG_NOTE('shipping') };
    if (prompt.includes('returns')) return { text: LONG_NOTE('returns') };
    // The customer's name was only in the lookup result, which compaction folds into a summary.
    const customer = view.history.match(/customer ([A-Z][a-z]+ [A-Z][a-z]+)/)?.[1];
    return customer
      ? answer(view, `That order was placed by ${customer}.`, customer)
      : { text: 'I no longer have the name of the customer on that order.' };
  },
};

/** Usage with the stable prefix (system prompt and tools) read from cache after the first call. */
function usageOf(request: ModelRequest, turn: ScriptedTurn): ScriptedTurn {
  if (turn.error) return turn;
  const total = estimateRequestTokens(request);
  const prefix =
    estimateTokens(request.system ?? '') + estimateTokens(JSON.stringify(request.tools));
  const cached = request.messages.length > 1 ? Math.min(total, prefix) : 0;
  return { ...turn, usage: { inputTokens: total - cached, cacheReadTokens: cached } };
}

/** The cases the demo model knows. */
export const DEMO_POLICY_NAMES: readonly string[] = Object.keys(POLICIES);

/** The demo model for one session of one case. */
export function demoProvider(caseName: string, repeat: number): ScriptedProvider {
  const policy = POLICIES[caseName];
  if (!policy) throw new Error(`the demo model has no policy for case ${caseName}`);
  return scripted([(request) => usageOf(request, policy(viewOf(request, repeat)))], {
    model: DEMO_MODEL,
    whenExhausted: 'repeat-last',
    recordRequests: false,
  });
}
