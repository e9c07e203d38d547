import type { Message } from '../messages/message.js';
import type { ModelRequest } from '../ports/provider.js';
import { prefixCopyOnRead } from '../support/append-only.js';

/** The fields of a model request the loop sets besides its messages. */
export type RequestFields = Pick<
  ModelRequest,
  | 'model'
  | 'system'
  | 'tools'
  | 'maxOutputTokens'
  | 'temperature'
  | 'stopSequences'
  | 'output'
  | 'toolChoice'
>;

/**
 * A model request whose `messages` are the messages `history` holds now, copied when first read
 * (then always the same array, which the reader may change or replace as it could a plain
 * request's). A provider that never reads them costs no copy of the history.
 *
 * The caller's invariant: `history` is only appended to while the request lives (a rewrite, as
 * by compaction or repair, puts a new array in its place), so the messages it held when the
 * request was made are still the ones sent, however late they are read.
 */
export function requestSnapshot(fields: RequestFields, history: readonly Message[]): ModelRequest {
  const messages = prefixCopyOnRead(history);
  return {
    model: fields.model,
    system: fields.system,
    get messages(): readonly Message[] {
      return messages.get();
    },
    set messages(value: readonly Message[]) {
      messages.set(value);
    },
    tools: fields.tools,
    maxOutputTokens: fields.maxOutputTokens,
    temperature: fields.temperature,
    stopSequences: fields.stopSequences,
    // Set only with typed output: a request without it has exactly the fields it always had.
    ...(fields.output === undefined ? {} : { output: fields.output }),
    ...(fields.toolChoice === undefined ? {} : { toolChoice: fields.toolChoice }),
  };
}
