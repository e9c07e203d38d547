/** Matches an answer line: `ANSWER: value`, tolerating markdown bold around the label. */
const ANSWER_LINE = /^[ \t>*_`]*ANSWER[*_`]*\s*:[*_`]*[ \t]*(.*)$/;

/** The answer line the grader reads, as written and as a value. */
export interface AnswerLine {
  /** The whole line, as the model wrote it (trailing spaces removed). */
  readonly line: string;
  /** What follows `ANSWER:`, trimmed. */
  readonly value: string;
}

/**
 * The last `ANSWER:` line of a reply (the final answer when the model corrected itself), or
 * undefined when there is none. The label must start the line; markdown bold around it is
 * tolerated (`**ANSWER:** 42`), a label inside a sentence is not an answer line.
 */
export function finalAnswerLine(text: string): AnswerLine | undefined {
  const lines = text.split(/\r?\n/);
  for (let index = lines.length - 1; index >= 0; index--) {
    const line = (lines[index] ?? '').replace(/\s+$/, '');
    const match = ANSWER_LINE.exec(line);
    if (match) return { line, value: (match[1] ?? '').trim() };
  }
  return undefined;
}

/**
 * A value with light decoration removed, for answers whose format is not under test: surrounding
 * markdown emphasis, backticks and quotes, and trailing full stops.
 */
export function undecorated(value: string): string {
  let text = value.trim();
  for (let previous = ''; previous !== text; ) {
    previous = text;
    text = text.replace(/\.$/, '').trim();
    text = text.replace(/^(\*\*|__|[*_`"'])(.*)\1$/s, '$2').trim();
    text = text.replace(/^[“‘](.*)[”’]$/s, '$1').trim();
  }
  return text;
}
