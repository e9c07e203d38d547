// The parts of the hand-written loop the benches measure against (their floor): one model turn
// streamed to its end, and the tool run on each call it makes, with nothing else around them.

/** A tool as a model request lists it. */
export const toolSpec = (tool) => ({
  name: tool.name,
  description: tool.description,
  inputSchema: tool.schema.jsonSchema,
});

/** Streams one model turn and returns the message it ends with. */
export async function modelTurn(model, request, signal) {
  let end;
  for await (const event of model.stream(request, { signal }))
    if (event.type === 'message-end') end = event;
  return end.message;
}

/**
 * Runs `tool` on each call of `message` and returns the results, in order (none: the answer).
 * `around(run)` wraps each run, as a journal would (default: it just runs).
 */
export async function answerCalls(tool, message, signal, around = (run) => run()) {
  const results = [];
  for (const block of message.content) {
    if (block.type !== 'tool_use') continue;
    const result = await around(async () => {
      const text = await tool.run(block.input, { signal, callId: block.id, attempt: 1 });
      return {
        type: 'tool_result',
        toolUseId: block.id,
        content: [{ type: 'text', text }],
        isError: false,
      };
    });
    results.push(result);
  }
  return results;
}
