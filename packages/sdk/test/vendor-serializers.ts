import type { Serializer } from '@mh/conformance';
import type { Message, Provider } from '@mh/core';
import { anthropic } from '@mh/providers/anthropic';
import { openai } from '@mh/providers/openai';

/** Thrown by the capturing clients once they hold the request: nothing is sent anywhere. */
class Captured extends Error {}

/** A vendor SDK client whose `create` keeps the request body and goes no further. */
function capturingClient(path: readonly string[], into: { body?: unknown }): unknown {
  const create = (body: unknown) => {
    into.body = body;
    const refused = Promise.reject(new Captured('captured'));
    refused.catch(() => {});
    return { withResponse: () => refused };
  };
  return path.reduceRight<unknown>((inner, key) => ({ [key]: inner }), { create });
}

/** Builds the request `provider` would send for `history`, through its real serialiser. */
async function build(provider: Provider, into: { body?: unknown }, history: readonly Message[]) {
  into.body = undefined;
  try {
    for await (const _event of provider.stream({ model: 'm', messages: history, tools: [] })) {
      // the capturing client ends the stream before any event
    }
  } catch (error) {
    if (into.body === undefined) throw error; // the serialiser itself failed
  }
  if (into.body === undefined) throw new Error('no request was built');
  return into.body;
}

type Block = { type: string; tool_use_id?: string; id?: string };
type Turn = { role: string; content: string | Block[] };

/** What the Messages API refuses: a misplaced block kind, an empty turn, an unanswered call. */
function checkAnthropic(body: { messages: Turn[] }): void {
  body.messages.forEach((turn, index) => {
    const blocks = typeof turn.content === 'string' ? [] : turn.content;
    if (typeof turn.content !== 'string' && blocks.length === 0)
      throw new Error(`anthropic: message ${index} has no content`);
    const allowed =
      turn.role === 'user'
        ? ['text', 'image', 'tool_result', 'document']
        : ['text', 'thinking', 'redacted_thinking', 'tool_use'];
    for (const block of blocks)
      if (!allowed.includes(block.type))
        throw new Error(`anthropic: a ${block.type} block in a ${turn.role} message ${index}`);
    const calls = blocks.filter((block) => block.type === 'tool_use').map((block) => block.id);
    if (calls.length === 0) return;
    const next = body.messages[index + 1];
    const answered = new Set(
      (typeof next?.content === 'string' ? [] : (next?.content ?? []))
        .filter((block) => block.type === 'tool_result')
        .map((block) => block.tool_use_id),
    );
    for (const id of calls)
      if (!answered.has(id))
        throw new Error(`anthropic: call ${id} unanswered in message ${index + 1}`);
  });
}

type ChatTurn = { role: string; tool_calls?: { id: string }[]; tool_call_id?: string };

/** What Chat Completions refuses: tool calls not followed by one tool message each. */
function checkChat(body: { messages: ChatTurn[] }): void {
  body.messages.forEach((turn, index) => {
    if (!turn.tool_calls?.length) return;
    const answers = new Set<string | undefined>();
    for (let next = index + 1; body.messages[next]?.role === 'tool'; next++)
      answers.add(body.messages[next]?.tool_call_id);
    for (const call of turn.tool_calls)
      if (!answers.has(call.id)) throw new Error(`openai chat: call ${call.id} unanswered`);
  });
}

/** The request builders of Anthropic Messages, OpenAI Chat and OpenAI Responses, checked. */
export function vendorSerializers(): Serializer[] {
  const messages: { body?: unknown } = {};
  const chat: { body?: unknown } = {};
  const responses: { body?: unknown } = {};
  const anthropicProvider = anthropic({
    client: capturingClient(['messages'], messages) as never,
  });
  const chatProvider = openai({ client: capturingClient(['chat', 'completions'], chat) as never });
  const responsesProvider = openai({
    api: 'responses',
    client: capturingClient(['responses'], responses) as never,
  });
  return [
    {
      name: 'Anthropic Messages',
      build: async (history) =>
        checkAnthropic((await build(anthropicProvider, messages, history)) as { messages: Turn[] }),
    },
    {
      name: 'OpenAI Chat',
      build: async (history) =>
        checkChat((await build(chatProvider, chat, history)) as { messages: ChatTurn[] }),
    },
    { name: 'OpenAI Responses', build: (history) => build(responsesProvider, responses, history) },
  ];
}
