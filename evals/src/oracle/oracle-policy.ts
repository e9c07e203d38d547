/** One tool result the oracle got back, read as data. */
export interface SeenResult {
  /** The tool called. */
  readonly name: string;
  /** The arguments it was called with. */
  readonly input: Readonly<Record<string, unknown>>;
  /** The result text, without the injection defence's fence. */
  readonly text: string;
  /** Whether the call failed. */
  readonly isError: boolean;
}

/** What the oracle knows when it decides its next turn: only what the request holds. */
export interface OracleView {
  /** The task prompt being answered (0-based), matched against the request's last prompt. */
  readonly promptNumber: number;
  /** Tool results since that prompt, in order. */
  readonly results: readonly SeenResult[];
  /** `NOTE …` lines the oracle wrote earlier, found anywhere in the request (summaries too). */
  readonly notes: readonly string[];
}

/** The oracle's next turn: some text (notes, the answer) and tool calls. */
export interface OracleStep {
  /** Text of the turn; a final turn ends with the `ANSWER:` line. */
  readonly text?: string;
  /** Tool calls; none means the turn is final. */
  readonly calls?: readonly { readonly name: string; readonly input: Record<string, unknown> }[];
}

/** A dry-run trajectory: decides each turn from what the request shows. */
export type OraclePolicy = (view: OracleView) => OracleStep;

/** The latest result of `name` whose input matches `match` (all given fields equal). */
export function resultOf(
  view: OracleView,
  name: string,
  match: Readonly<Record<string, unknown>> = {},
): SeenResult | undefined {
  for (let index = view.results.length - 1; index >= 0; index--) {
    const result = view.results[index];
    if (
      result?.name === name &&
      Object.entries(match).every(([key, value]) => result.input[key] === value)
    )
      return result;
  }
  return undefined;
}

/** A turn calling one tool, with optional notes before it. */
export function callTool(
  name: string,
  input: Record<string, unknown>,
  notes: readonly string[] = [],
): OracleStep {
  return { text: notes.length > 0 ? notes.join('\n') : undefined, calls: [{ name, input }] };
}

/** A final turn: a short sentence, the notes, then the `ANSWER:` line. */
export function finalAnswer(value: string, notes: readonly string[] = []): OracleStep {
  return { text: [...notes, `I have what I need.`, `ANSWER: ${value}`].join('\n') };
}

/** A final turn that found nothing usable (a tool or parse failure shows up as a failed case). */
export function giveUp(why: string): OracleStep {
  return { text: `I could not find the answer: ${why}.\nANSWER: unknown` };
}

/** The `path:line: text` matches of a grep result. */
export function grepMatches(text: string): { path: string; line: number; text: string }[] {
  return text.split('\n').flatMap((line) => {
    const match = /^(.+?):(\d+): (.*)$/.exec(line);
    return match ? [{ path: match[1] ?? '', line: Number(match[2]), text: match[3] ?? '' }] : [];
  });
}
