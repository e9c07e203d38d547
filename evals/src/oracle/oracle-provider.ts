import {
  ConfigError,
  type ModelRequest,
  messageText,
  type Provider,
  type StreamEvent,
  type StreamOptions,
} from '@mh/core';
import { type ScriptedTurn, scripted } from '@mh/providers';
import type { OraclePolicy } from './oracle-policy.js';
import { oracleView } from './oracle-view.js';

/** First line of the oracle's summaries. */
export const ORACLE_SUMMARY_HEADER = 'Summary of the earlier conversation (dry-run oracle):';

/**
 * The oracle's summary of a compaction transcript: extractive, it keeps the user's prompts and
 * the oracle's own `NOTE` and `ANSWER:` lines verbatim and drops everything else (tool results
 * included), so what survives compaction is exactly what was noted.
 */
export function oracleSummary(transcript: string): string {
  const kept = transcript.split('\n').flatMap((line) => {
    if (line.startsWith('[user] ')) return [line];
    const own = line.replace(/^\[assistant\] /, '');
    return own.startsWith('NOTE ') || own.startsWith('ANSWER: ') ? [own] : [];
  });
  return [ORACLE_SUMMARY_HEADER, ...kept].join('\n');
}

/**
 * The dry run's model: plays a task's policy turn by turn, deciding from what each request
 * really holds (the tool results the tools really returned), and answers compaction's summary
 * calls (`purpose: 'summary'`) extractively. It streams the same events a real provider does
 * (through `ScriptedProvider`), with usage estimated from the request, so compaction sees sizes
 * like a real model's.
 */
export class OracleProvider implements Provider {
  readonly name: string = 'oracle';
  readonly #policy: OraclePolicy;
  readonly #prompts: readonly string[];
  /** Model calls made (summaries included). */
  calls = 0;
  /** Summary calls made. */
  summaries = 0;

  /** An oracle playing `policy` for a task with these `prompts`. */
  constructor(policy: OraclePolicy, prompts: readonly string[]) {
    if (typeof policy !== 'function') throw new ConfigError('policy', 'expected a function');
    if (!Array.isArray(prompts) || prompts.length === 0)
      throw new ConfigError('prompts', 'expected the task prompts');
    this.#policy = policy;
    this.#prompts = prompts;
  }

  stream(request: ModelRequest, options?: StreamOptions): AsyncIterable<StreamEvent> {
    this.calls++;
    let turn: ScriptedTurn;
    if (request.purpose === 'summary') {
      this.summaries++;
      const transcript = request.messages.map((message) => messageText(message)).join('\n');
      turn = { text: oracleSummary(transcript) };
    } else {
      const step = this.#policy(oracleView(request, this.#prompts));
      turn = {
        text: step.text,
        toolCalls: step.calls?.map((call) => ({ name: call.name, input: call.input })),
      };
    }
    return scripted([turn]).stream(request, options);
  }
}
