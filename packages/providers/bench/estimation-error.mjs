// How far core's token estimator is from what providers really count, on the recorded fixtures
// (run against the BUILT @mh/core: `npx tsc -b` at the repository root first).
// - Input: the real request bodies of anthropic-sdk-typescript/ToolRunner.json, mapped to
//   ModelRequests, estimated with estimateRequestTokens and compared with the recorded
//   input_tokens (+ cache reads and writes).
// - Calibration: within each recorded conversation, a ContextMeter observes request k with its
//   real usage and predicts request k+1, as it does before every model call.
// - Output: the visible output of each stream fixture (text, shown reasoning, tool-call JSON),
//   estimated with estimateTokens, against the output tokens the vendor billed.
// Deterministic: no timings, so one run is the result. Errors are (estimate − real) ÷ real.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { ContextMeter, estimateTokens } from '@mh/core';
import { estimateMessageTokens, estimateRequestTokens } from '@mh/core/internal';
import { streamResponses } from './estimation-streams.mjs';

const cassette = JSON.parse(
  readFileSync(
    new URL('../src/__fixtures__/anthropic-sdk-typescript/ToolRunner.json', import.meta.url),
    'utf8',
  ),
);

const textBlocks = (content) =>
  typeof content === 'string' ? [{ type: 'text', text: content }] : content;

/** An Anthropic content block as core's vendor-neutral block. */
function toBlock(block) {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: block.text };
    case 'tool_use':
      return { type: 'tool_use', id: block.id, name: block.name, input: block.input };
    case 'tool_result':
      return {
        type: 'tool_result',
        toolUseId: block.tool_use_id,
        content: textBlocks(block.content ?? []).map(toBlock),
        isError: block.is_error === true,
      };
    default:
      throw new Error(`block type ${block.type} is not mapped`);
  }
}

/**
 * A recorded body as the ModelRequest that would produce it. Message ids hash position and
 * content, so a later request of the same conversation shares the ids of the messages it repeats
 * (which is how a ContextMeter recognises the part it measured).
 */
function toRequest(body) {
  const system = Array.isArray(body.system)
    ? body.system.map((block) => block.text).join('\n')
    : body.system;
  return {
    model: body.model,
    system,
    tools: (body.tools ?? []).map((tool) => ({
      name: tool.name,
      description: tool.description ?? '',
      inputSchema: tool.input_schema,
    })),
    messages: body.messages.map((message, index) => {
      const content = textBlocks(message.content).map(toBlock);
      const hash = createHash('sha256').update(JSON.stringify([index, message.role, content]));
      return { id: `m_${hash.digest('hex').slice(0, 16)}`, role: message.role, content };
    }),
  };
}

/** Core's Usage of a recorded Anthropic usage object. */
const toUsage = (usage) => ({
  inputTokens: usage.input_tokens,
  outputTokens: usage.output_tokens,
  cacheReadTokens: usage.cache_read_input_tokens ?? 0,
  cacheWriteTokens: usage.cache_creation_input_tokens ?? 0,
});
const promptOf = (usage) => usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
const errorPct = (estimate, real) => ((estimate - real) / real) * 100;
const pct = (value) => `${value >= 0 ? '+' : ''}${value.toFixed(1)}%`;
const stats = (errors) => {
  const absolute = errors.map(Math.abs);
  return {
    mean: absolute.reduce((sum, value) => sum + value, 0) / absolute.length,
    max: Math.max(...absolute),
  };
};
const statLine = (errors) => {
  const { mean, max } = stats(errors);
  return `mean |error| ${mean.toFixed(1)}%, max |error| ${max.toFixed(1)}% (n=${errors.length})`;
};
function table(header, rows) {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => String(row[column]).length)),
  );
  const line = (cells) =>
    `| ${cells.map((cell, i) => String(cell).padEnd(widths[i])).join(' | ')} |`;
  console.log(line(header));
  console.log(`|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`);
  for (const row of rows) console.log(line(row));
}

// Input tokens.
const calls = cassette.map((call, index) => {
  const request = toRequest(call.body);
  const usage = toUsage(call.response.usage);
  return { index, request, usage, real: promptOf(usage), estimate: estimateRequestTokens(request) };
});
console.log('## Input tokens: estimateRequestTokens vs recorded usage (ToolRunner.json)\n');
table(
  ['#', 'messages', 'tools', 'estimated', 'real', 'real − est', 'error'],
  calls.map((call) => [
    call.index,
    call.request.messages.length,
    call.request.tools.length,
    call.estimate,
    call.real,
    call.real - call.estimate,
    pct(errorPct(call.estimate, call.real)),
  ]),
);
const inputErrors = calls.map((call) => errorPct(call.estimate, call.real));
console.log(`\nInput, uncalibrated: ${statLine(inputErrors)}`);
for (const [label, withTools] of [
  ['with tools', true],
  ['without tools', false],
]) {
  const subset = calls.filter((call) => call.request.tools.length > 0 === withTools);
  console.log(`  ${label}: ${statLine(subset.map((call) => errorPct(call.estimate, call.real)))}`);
}

// Calibration, as the loop does it: a ContextMeter per conversation observes each turn's request
// with its real usage and predicts the next turn's. Summary calls (answered with `<summary>`) are
// neither observed nor predicted: the loop never measures them. A turn continues the previous
// one when it starts with the same message, or with the summary a summary call wrote since.
const responseText = (call) =>
  cassette[call.index].response.content
    .filter((block) => block.type === 'text')
    .map((block) => block.text)
    .join('');
const firstText = (call) =>
  (call.request.messages[0]?.content ?? []).map((block) => block.text ?? '').join('');
const isSummaryCall = (call) => responseText(call).trimStart().startsWith('<summary>');
const conversations = [];
let lastSummary;
for (const call of calls) {
  if (isSummaryCall(call)) {
    lastSummary = responseText(call);
    continue;
  }
  const current = conversations.at(-1);
  const previous = current?.at(-1);
  const continues =
    previous !== undefined &&
    (previous.request.messages[0]?.id === call.request.messages[0]?.id ||
      firstText(call) === lastSummary);
  if (continues) current.push(call);
  else conversations.push([call]);
}
const predictions = [];
for (const conversation of conversations) {
  const meter = new ContextMeter();
  conversation.forEach((call, position) => {
    if (position > 0) {
      predictions.push({
        step: `${conversation[position - 1].index} → ${call.index}`,
        real: call.real,
        raw: call.estimate,
        ratio: meter.calibration,
        calibrated: meter.estimate(call.request),
        measured: meter.measure(call.request),
      });
    }
    meter.observe(call.request, call.usage);
  });
}
const summaryCalls = calls.filter(isSummaryCall).map((call) => call.index);
console.log(
  `\n## Calibration: a ContextMeter observes turn k, predicts turn k+1 (conversations ` +
    `${conversations.map((conversation) => conversation.map((call) => call.index).join('-')).join(', ')}; ` +
    `summary calls ${summaryCalls.join(', ')} left out)\n`,
);
table(
  ['k → k+1', 'real', 'raw estimate', 'ratio', 'estimate × ratio', 'ContextMeter.measure'],
  predictions.map((p) => [
    p.step,
    p.real,
    `${p.raw} (${pct(errorPct(p.raw, p.real))})`,
    p.ratio.toFixed(2),
    `${p.calibrated} (${pct(errorPct(p.calibrated, p.real))})`,
    `${p.measured.tokens} (${pct(errorPct(p.measured.tokens, p.real))})${p.measured.measuredTokens > 0 ? ` = ${p.measured.measuredTokens} measured + delta` : ', no measured prefix'}`,
  ]),
);
console.log(
  `\nPredicting k+1, raw estimate:         ${statLine(predictions.map((p) => errorPct(p.raw, p.real)))}`,
);
console.log(
  `Predicting k+1, estimate × ratio:     ${statLine(predictions.map((p) => errorPct(p.calibrated, p.real)))}`,
);
console.log(
  `Predicting k+1, ContextMeter.measure: ${statLine(predictions.map((p) => errorPct(p.measured.tokens, p.real)))}`,
);

// Output tokens.
const outputs = streamResponses().filter((response) => response.real !== undefined);
const skipped = streamResponses().filter((response) => response.real === undefined);
const outputRows = outputs.map((response) => {
  const visible = response.text + response.reasoning;
  const estimate =
    estimateTokens(visible) +
    response.toolJson.reduce((sum, json) => sum + estimateTokens(json), 0);
  const content = [];
  if (response.reasoning) content.push({ type: 'thinking', thinking: response.reasoning });
  if (response.text) content.push({ type: 'text', text: response.text });
  // The assistant message as the loop stores it, which is what the meter adds next turn.
  for (const [index, json] of response.toolJson.entries()) {
    const name = response.toolNames[index];
    content.push({ type: 'tool_use', id: `call_${index}`, name, input: {}, rawInput: json });
  }
  const asMessage = estimateMessageTokens({ id: 'a', role: 'assistant', content });
  return { ...response, estimate, asMessage };
});
console.log('\n## Output tokens: estimateTokens of the visible output vs billed output tokens\n');
table(
  [
    'fixture',
    'text+reasoning chars',
    'tool JSON chars',
    'estimated',
    'real',
    'error',
    'as message',
    'error',
  ],
  outputRows.map((row) => [
    row.name + (row.hiddenReasoning ? ` (−${row.hiddenReasoning} hidden reasoning)` : ''),
    (row.text + row.reasoning).length,
    row.toolJson.join('').length,
    row.estimate,
    row.real,
    pct(errorPct(row.estimate, row.real)),
    row.asMessage,
    pct(errorPct(row.asMessage, row.real)),
  ]),
);
console.log(
  `\nOutput, estimateTokens(text + JSON): ${statLine(outputRows.map((row) => errorPct(row.estimate, row.real)))}`,
);
console.log(
  `Output, estimateMessageTokens:       ${statLine(outputRows.map((row) => errorPct(row.asMessage, row.real)))}`,
);
if (skipped.length > 0)
  console.log(
    `(no output usage recorded, left out: ${skipped.map((response) => response.name).join(', ')})`,
  );
