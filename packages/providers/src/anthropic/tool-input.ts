/** A tool call's arguments as parsed from the streamed JSON text. */
export interface ParsedToolInput {
  /** The arguments object; `{}` when none were sent or they could not be parsed. */
  readonly input: Record<string, unknown>;
  /** The raw text, only when it was not a JSON object. */
  readonly rawInput?: string;
}

/**
 * Parses the accumulated `input_json_delta` text of a tool call. Empty text (and the literal `""`
 * some gateways send for a call without arguments) is `{}`. Text that is not a JSON object (cut
 * off by `max_tokens`, say) gives `{}` plus `rawInput`, never a throw: the executor answers such a
 * call with an error result instead of running it.
 */
export function parseToolInput(json: string): ParsedToolInput {
  const trimmed = json.trim();
  if (trimmed === '' || trimmed === '""') return { input: {} };
  try {
    const value: unknown = JSON.parse(trimmed);
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      return { input: value as Record<string, unknown> };
    }
  } catch {
    // Not JSON: kept verbatim below.
  }
  return { input: {}, rawInput: json };
}
