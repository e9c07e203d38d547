/** A tool call's arguments after parsing: the input object, and the raw text when it was unusable. */
export interface ParsedToolArguments {
  /** The arguments object; `{}` when none were sent or they were not a JSON object. */
  readonly input: unknown;
  /** The text as the model sent it, only when it was not a JSON object. */
  readonly rawInput?: string;
}

/**
 * Parses a tool call's streamed argument text. Empty text is `{}` (a tool without arguments);
 * text that is not a JSON object (broken or truncated JSON, an array, a bare value) gives `{}`
 * with the text kept in `rawInput`, so the executor can answer with an error. Never throws.
 */
export function parseToolArguments(text: string): ParsedToolArguments {
  if (text.trim() === '') return { input: {} };
  try {
    const input: unknown = JSON.parse(text);
    if (input !== null && typeof input === 'object' && !Array.isArray(input)) return { input };
  } catch {
    // Falls through: the raw text is kept for the executor's error answer.
  }
  return { input: {}, rawInput: text };
}
