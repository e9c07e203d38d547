import { ConfigError, ToolInterrupt } from '../errors.js';
import type { JsonSchema } from '../ports/provider.js';
import type { AskedQuestion, ToolQuestion } from '../ports/tool.js';
import { jsonValueProblem } from '../support/json-value.js';
import { assertOptions } from '../support/option-checks.js';

/**
 * The `interrupt` of one run of a call (`ToolRunContext.interrupt`), and what it was asked. An
 * executor makes one per attempt, hands `interrupt` to the tool, and after the tool settles reads
 * `pending`: set when a question found no answer, whatever the tool did with the rejection.
 */
export interface QuestionAsker {
  /** The tool's `context.interrupt`. */
  readonly interrupt: (question: ToolQuestion) => Promise<unknown>;
  /**
   * The first question that had no answer; undefined while every question was answered. Read it
   * from the asker itself: it is a getter, so a spread or a JSON copy of the asker leaves it out.
   */
  readonly pending: AskedQuestion | undefined;
}

/**
 * A `QuestionAsker` for call `callId` that answers its n-th question with `answers[n - 1]`, and
 * rejects the first question past them with `ToolInterrupt` (as every later one). A malformed
 * question is a `ConfigError` naming `question` (the tool's mistake: the call fails with it).
 */
export function questionAsker(callId: string, answers: readonly unknown[] = []): QuestionAsker {
  return new Asker(callId, answers);
}

/**
 * `questionAsker`'s asker, as a class: its `pending` getter lives on the prototype. (An object
 * literal with a getter is built on a slow path, about 4 µs per tool call in a profile.)
 */
class Asker implements QuestionAsker {
  readonly #callId: string;
  readonly #answers: readonly unknown[];
  #asked = 0;
  #pending: AskedQuestion | undefined;

  constructor(callId: string, answers: readonly unknown[]) {
    this.#callId = callId;
    this.#answers = answers;
  }

  readonly interrupt = async (question: ToolQuestion): Promise<unknown> => {
    const checked = checkQuestion(question);
    if (this.#pending) throw new ToolInterrupt(this.#callId, this.#pending);
    if (this.#asked < this.#answers.length) return this.#answers[this.#asked++];
    this.#pending = { ...checked, answers: this.#answers.slice(0, this.#asked) };
    throw new ToolInterrupt(this.#callId, this.#pending);
  };

  get pending(): AskedQuestion | undefined {
    return this.#pending;
  }
}

/** The question's text and schema; a `ConfigError` naming the field when it is malformed. */
export function checkQuestion(question: unknown): {
  readonly question: string;
  readonly schema?: JsonSchema;
} {
  if (typeof question === 'string') {
    if (question.trim() === '') throw new ConfigError('question', 'expected a non-empty string');
    return { question };
  }
  if (question === null || typeof question !== 'object' || Array.isArray(question))
    throw new ConfigError('question', 'expected a string or { question, schema? }');
  assertOptions(question, ['question', 'schema'], 'question');
  const { question: text, schema } = question as Record<string, unknown>;
  if (typeof text !== 'string' || text.trim() === '')
    throw new ConfigError('question.question', 'expected a non-empty string');
  if (schema === undefined) return { question: text };
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema))
    throw new ConfigError('question.schema', 'expected a JSON Schema object');
  return { question: text, schema: schema as JsonSchema };
}

/**
 * Checks a question bound for a journal (`SessionStore.journalQuestion`): its text and schema as
 * `checkQuestion` does, and `answers` a JSON array. A `ConfigError` names the field.
 */
export function checkAskedQuestion(value: unknown, field = 'question'): AskedQuestion {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new ConfigError(field, 'expected { question, schema?, answers }');
  const { answers, ...rest } = value as Record<string, unknown>;
  let checked: { readonly question: string; readonly schema?: JsonSchema };
  try {
    checked = checkQuestion(rest);
  } catch (error) {
    if (!ConfigError.isInstance(error)) throw error;
    throw new ConfigError(
      `${field}${error.field.slice('question'.length)}`,
      error.message.slice(error.field.length + 2),
    );
  }
  return { ...checked, answers: checkAnswers(answers, `${field}.answers`) };
}

/** `answers` as a JSON array; a `ConfigError` naming `field` (or the bad element) otherwise. */
export function checkAnswers(answers: unknown, field = 'answers'): readonly unknown[] {
  if (!Array.isArray(answers)) throw new ConfigError(field, 'expected an array of JSON values');
  const problem = jsonValueProblem(answers, field);
  if (problem !== undefined) {
    const at = problem.indexOf(': ');
    throw new ConfigError(problem.slice(0, at), problem.slice(at + 2));
  }
  return answers;
}
