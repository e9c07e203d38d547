// What a recorded stream generated, for bench/estimation-error.mjs: the visible output (text,
// reasoning the vendor shows, tool-call argument JSON) and the output tokens the vendor billed.
// Read straight from the fixtures' event payloads, one reader per wire format, so the figures do
// not depend on our adapters.
import { readFileSync } from 'node:fs';

const FIXTURES = new URL('../src/__fixtures__/', import.meta.url);

/** The JSON payloads of a fixture: `data:` lines of a wire SSE file, or one JSON per line. */
function payloads(name) {
  const text = readFileSync(new URL(name, FIXTURES), 'utf8');
  const lines = name.endsWith('.chunks.txt')
    ? text.split('\n')
    : text
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice('data:'.length));
  return lines
    .map((line) => line.trim())
    .filter((line) => line !== '' && line !== '[DONE]')
    .map((line) => JSON.parse(line));
}

/** A new tally of one response's visible output. */
const tally = () => ({ text: '', reasoning: '', toolJson: [], toolNames: [], real: undefined });

/** Anthropic Messages stream: text, thinking and tool input deltas; output_tokens of the last usage. */
function anthropicResponses(events) {
  const out = tally();
  const blocks = new Map();
  for (const event of events) {
    if (event.type === 'content_block_start') {
      const block = event.content_block;
      if (block.type === 'tool_use' || block.type === 'server_tool_use') {
        blocks.set(event.index, out.toolJson.length);
        out.toolJson.push('');
        out.toolNames.push(block.name);
      }
    } else if (event.type === 'content_block_delta') {
      const delta = event.delta;
      if (delta.type === 'text_delta') out.text += delta.text;
      else if (delta.type === 'thinking_delta') out.reasoning += delta.thinking;
      else if (delta.type === 'input_json_delta') {
        const at = blocks.get(event.index);
        if (at !== undefined) out.toolJson[at] += delta.partial_json;
      }
    } else if (event.type === 'message_delta' && event.usage?.output_tokens !== undefined) {
      out.real = event.usage.output_tokens;
    }
  }
  return [out];
}

/** Chat Completions stream: content, reasoning_content and tool-call argument deltas; usage.completion_tokens. */
function chatResponses(events) {
  const out = tally();
  const calls = new Map();
  for (const chunk of events) {
    for (const choice of chunk.choices ?? []) {
      const delta = choice.delta ?? {};
      if (typeof delta.content === 'string') out.text += delta.content;
      if (typeof delta.reasoning_content === 'string') out.reasoning += delta.reasoning_content;
      for (const call of delta.tool_calls ?? []) {
        if (!calls.has(call.index)) {
          calls.set(call.index, out.toolJson.length);
          out.toolJson.push('');
          out.toolNames.push(call.function?.name ?? '');
        }
        out.toolJson[calls.get(call.index)] += call.function?.arguments ?? '';
      }
    }
    if (chunk.usage?.completion_tokens !== undefined) out.real = chunk.usage.completion_tokens;
  }
  return [out];
}

/**
 * Responses API stream, one tally per `response.created`: output text, function-call arguments
 * and web-search actions. Hidden reasoning is billed but never shown, so the comparison is with
 * output_tokens minus reasoning_tokens (reasoning summaries are written by another model).
 */
function responsesResponses(events) {
  const all = [];
  let out;
  for (const event of events) {
    if (event.type === 'response.created') {
      out = tally();
      all.push(out);
    }
    if (!out) continue;
    if (event.type === 'response.output_text.delta') out.text += event.delta;
    else if (event.type === 'response.function_call_arguments.done') {
      out.toolJson.push(event.arguments);
      out.toolNames.push(event.name ?? '');
    } else if (
      event.type === 'response.output_item.done' &&
      event.item?.type === 'web_search_call'
    ) {
      // The query or URL is generated; the `sources` list is what the search returned.
      const { sources: _sources, ...action } = event.item.action ?? {};
      out.toolJson.push(JSON.stringify(action));
      out.toolNames.push('web_search');
    } else if (event.type === 'response.completed') {
      const usage = event.response.usage;
      out.real = usage.output_tokens - (usage.output_tokens_details?.reasoning_tokens ?? 0);
      out.hiddenReasoning = usage.output_tokens_details?.reasoning_tokens ?? 0;
    }
  }
  return all;
}

/** The stream fixtures, each with the reader of its wire format. */
export const STREAM_FIXTURES = [
  ['anthropic-sdk-typescript/tool_use_response.txt', anthropicResponses],
  ['anthropic-sdk-typescript/incomplete_partial_json_response.txt', anthropicResponses],
  ['vercel-ai/anthropic-text.chunks.txt', anthropicResponses],
  ['vercel-ai/anthropic-json-tool.1.chunks.txt', anthropicResponses],
  ['vercel-ai/anthropic-tool-no-args.chunks.txt', anthropicResponses],
  ['vercel-ai/anthropic-web-search-tool.1.chunks.txt', anthropicResponses],
  ['vercel-ai/openai-text.chunks.txt', chatResponses],
  ['vercel-ai/deepseek-tool-call.chunks.txt', chatResponses],
  ['vercel-ai/alibaba-tool-call.chunks.txt', chatResponses],
  ['vercel-ai/openai-reasoning-encrypted-content.1.chunks.txt', responsesResponses],
  ['vercel-ai/openai-web-search-tool.1.chunks.txt', responsesResponses],
  ['vercel-ai/openai-error.1.chunks.txt', responsesResponses],
];

/** Every response of every stream fixture: `{ name, text, reasoning, toolJson, toolNames, real }`. */
export function streamResponses() {
  return STREAM_FIXTURES.flatMap(([name, read]) => {
    const responses = read(payloads(name));
    return responses.map((response, index) => ({
      ...response,
      name: responses.length > 1 ? `${name} #${index + 1}` : name,
    }));
  });
}
