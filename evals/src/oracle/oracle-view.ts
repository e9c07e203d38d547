import { type Message, type ModelRequest, toolResultText, unfenceUntrusted } from '@mh/core';
import type { OracleView, SeenResult } from './oracle-policy.js';

/** The text blocks of a message that are not tool results, joined. */
function ownText(message: Message): string {
  return message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('\n');
}

/** Where the latest prompt is: its number and the index of the message that holds it. */
function latestPrompt(
  messages: readonly Message[],
  prompts: readonly string[],
): { promptNumber: number; messageIndex: number } {
  let found = { promptNumber: 0, messageIndex: -1, position: -1 };
  messages.forEach((message, messageIndex) => {
    if (message.role !== 'user') return;
    const text = ownText(message);
    prompts.forEach((prompt, promptNumber) => {
      // A summary may quote several prompts: the one quoted last is the latest.
      const position = text.lastIndexOf(prompt);
      if (position < 0) return;
      if (
        messageIndex > found.messageIndex ||
        (messageIndex === found.messageIndex && position > found.position)
      )
        found = { promptNumber, messageIndex, position };
    });
  });
  return found;
}

/** `NOTE …` lines of the model's own turns and of summaries; never of tool results. */
function notesOf(messages: readonly Message[]): string[] {
  return messages.flatMap((message) =>
    ownText(message)
      .split('\n')
      .map((line) => line.replace(/^\[assistant\] /, ''))
      .filter((line) => line.startsWith('NOTE ')),
  );
}

/**
 * What the oracle may know at this request: the task prompt being answered (matched against the
 * task's prompts, also inside a compaction summary), the tool results since it (read through the
 * injection defence's fence), and its own notes.
 */
export function oracleView(request: ModelRequest, prompts: readonly string[]): OracleView {
  const { promptNumber, messageIndex } = latestPrompt(request.messages, prompts);
  const calls = new Map<string, { name: string; input: Record<string, unknown> }>();
  const results: SeenResult[] = [];
  request.messages.slice(messageIndex + 1).forEach((message) => {
    for (const block of message.content) {
      if (block.type === 'tool_use') {
        const input =
          block.input !== null && typeof block.input === 'object'
            ? (block.input as Record<string, unknown>)
            : {};
        calls.set(block.id, { name: block.name, input });
      } else if (block.type === 'tool_result') {
        const call = calls.get(block.toolUseId);
        if (!call) continue;
        results.push({
          ...call,
          text: unfenceUntrusted(toolResultText(block)),
          isError: block.isError,
        });
      }
    }
  });
  return { promptNumber, results, notes: notesOf(request.messages) };
}
