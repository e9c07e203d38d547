import type { OutputFailureReason } from '../errors.js';
import type { ToolUseBlock } from '../messages/message.js';
import type { StopReason } from '../ports/provider.js';
import { thrownText } from '../support/thrown-text.js';
import type { ResolvedOutput } from './typed-output.js';

/** What a final answer was worth as typed output. */
export type OutputVerdict =
  | { readonly ok: true; readonly value: unknown }
  | {
      readonly ok: false;
      readonly reason: OutputFailureReason;
      /** One line per problem. */
      readonly issues: readonly string[];
      /** The raw answer: the text, or the final tool's arguments as JSON. */
      readonly text: string;
    };

/** A fenced code block around the whole answer (```json … ```), which some models add. */
const FENCED = /^```[a-zA-Z]*\n([\s\S]*)\n```$/;

/**
 * Reads a final answer written as text (the `native` strategy, or a model that answered in text
 * under the `tool` one): a refusal or an answer cut off at the token limit fails at once; otherwise
 * the text must be JSON the schema accepts.
 */
export function readTextAnswer(
  output: ResolvedOutput,
  text: string,
  stopReason: StopReason | undefined,
): OutputVerdict {
  if (stopReason === 'refusal')
    return { ok: false, reason: 'refusal', issues: ['the model refused'], text };
  if (stopReason === 'max-tokens') {
    return {
      ok: false,
      reason: 'max-tokens',
      issues: ['the answer was cut off at the output token limit (raise maxOutputTokens)'],
      text,
    };
  }
  const trimmed = text.trim();
  if (trimmed === '') {
    const issue =
      output.strategy === 'tool'
        ? `no answer: give it by calling the tool ${output.name}`
        : 'no answer: expected a JSON value';
    return { ok: false, reason: 'invalid', issues: [issue], text };
  }
  const json = FENCED.exec(trimmed)?.[1] ?? trimmed;
  let written: unknown;
  try {
    written = JSON.parse(json);
  } catch (error) {
    const issue = `not JSON: ${thrownText('JSON.parse', error)}`;
    const issues =
      output.strategy === 'tool'
        ? [issue, `give the answer by calling the tool ${output.name}`]
        : [issue];
    return { ok: false, reason: 'invalid', issues, text };
  }
  return validate(output, written, text);
}

/** Reads a call of the final tool: its arguments are the answer. */
export function readToolAnswer(output: ResolvedOutput, call: ToolUseBlock): OutputVerdict {
  if (call.rawInput !== undefined) {
    return {
      ok: false,
      reason: 'invalid',
      issues: ['the arguments are not valid JSON'],
      text: call.rawInput,
    };
  }
  return validate(output, call.input, JSON.stringify(call.input) ?? '');
}

function validate(output: ResolvedOutput, written: unknown, text: string): OutputVerdict {
  let value: unknown;
  try {
    value = output.unwrap(written);
  } catch (error) {
    return { ok: false, reason: 'invalid', issues: [thrownText('Reading it', error)], text };
  }
  const parsed = output.schema.parse(value);
  if (parsed.success) return { ok: true, value: parsed.value };
  const issues = parsed.issues.length > 0 ? parsed.issues : ['does not match the schema'];
  return { ok: false, reason: 'invalid', issues, text };
}

/** What the model is told after a wrong answer given as text. */
export function correctionText(output: ResolvedOutput, issues: readonly string[]): string {
  const list = issues.map((issue) => `- ${issue}`).join('\n');
  const how =
    output.strategy === 'tool'
      ? `Give your final answer by calling the tool ${output.name} with arguments that match its schema.`
      : 'Answer again with only the JSON value the schema asks for.';
  return `Your answer is not valid ${output.name} output:\n${list}\n${how}`;
}

/** The result the final tool's call gets when its arguments were wrong. */
export function toolCorrectionText(output: ResolvedOutput, issues: readonly string[]): string {
  const list = issues.map((issue) => `- ${issue}`).join('\n');
  return `Not accepted:\n${list}\nCall ${output.name} again with arguments that match its schema.`;
}
