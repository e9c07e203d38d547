import type { AgentEvent, CompactionRecord, RunResult } from '@mh/sdk';
import { toolResultText, unfenceUntrusted } from '@mh/sdk';
import { APPROVAL_EXIT_CODE } from './approvals.js';
import { conflictMessage } from './conflict-message.js';

/** Where output goes; streams in production, buffers in tests. */
export interface Output {
  readonly out: NodeJS.WritableStream;
  readonly err: NodeJS.WritableStream;
  readonly color: boolean;
  /** The `--max-output-tokens` the answers are asked under, named when one is cut off by it. */
  readonly maxOutputTokens?: number;
}

/** The exit code of an answer the output limit cut off: printed, but incomplete. */
export const CUT_OFF_EXIT_CODE = 4;

const MAX_SHOWN = 160;

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > MAX_SHOWN ? `${flat.slice(0, MAX_SHOWN - 1)}…` : flat;
}

/** Writes agent events as they arrive: answer text to stdout, tool activity and notes to stderr. */
export class EventRenderer {
  readonly #output: Output;
  #atLineStart = true;
  /** Whether answer text of the current attempt has been printed (a retry must say it is void). */
  #printedThisAttempt = false;

  constructor(output: Output) {
    this.#output = output;
  }

  #dim(text: string): string {
    return this.#output.color ? `\x1b[2m${text}\x1b[22m` : text;
  }

  #red(text: string): string {
    return this.#output.color ? `\x1b[31m${text}\x1b[39m` : text;
  }

  #endLine(): void {
    if (!this.#atLineStart) {
      this.#output.out.write('\n');
      this.#atLineStart = true;
    }
  }

  #note(text: string): void {
    this.#endLine();
    this.#output.err.write(`${text}\n`);
  }

  /** Renders one event. */
  render(event: AgentEvent): void {
    switch (event.type) {
      case 'text-delta':
        if (event.text.length > 0) {
          this.#output.out.write(event.text);
          this.#printedThisAttempt = true;
          this.#atLineStart = event.text.endsWith('\n');
        }
        break;
      case 'tool-execution-start':
        this.#note(
          this.#dim(
            `⚙ ${event.call.name} ${oneLine(event.call.rawInput ?? JSON.stringify(event.call.input))}`,
          ),
        );
        break;
      case 'tool-execution-end': {
        // The data, without the fence the agent put around it: the fence is for the model.
        const text = oneLine(unfenceUntrusted(toolResultText(event.outcome.result))) || '(empty)';
        const line = event.outcome.result.isError
          ? this.#red(`  ✗ ${text}`)
          : this.#dim(`  ↳ ${text}`);
        this.#note(line);
        if (event.outcome.status === 'denied' && event.outcome.permission) {
          this.#note(
            this.#dim(`  (run mh with --grant ${event.outcome.permission} to allow such tools)`),
          );
        }
        break;
      }
      case 'stream-reset':
        // The partial answer above is withdrawn; the retry streams the whole answer again.
        this.#note(
          this.#dim(
            this.#printedThisAttempt
              ? `(the answer above was cut off: ${event.reason}; retrying from the start)`
              : `(retrying: ${event.reason})`,
          ),
        );
        this.#printedThisAttempt = false;
        break;
      case 'history-repair': {
        // Finishing a held turn (calls approved or denied) is no repair: say what was done.
        const resumed = event.repairs.find((repair) =>
          repair.detail.startsWith('resumed a pending turn'),
        );
        this.#note(
          this.#dim(
            resumed && event.repairs.length === 1
              ? `(${resumed.detail})`
              : `(repaired the history: ${event.repairs.length} change(s))`,
          ),
        );
        break;
      }
      case 'compaction':
        this.#note(this.#dim(compactionLine(event.record)));
        break;
      case 'message-start':
        this.#printedThisAttempt = false;
        break;
      case 'run-end':
        this.#endLine();
        this.#finish(event.result);
        break;
      default:
        break;
    }
  }

  #finish(result: RunResult): void {
    if (isCutOff(result)) this.#note(this.#red(cutOffNotice(this.#output.maxOutputTokens)));
    else if (result.status === 'cancelled') this.#note(this.#dim('(cancelled)'));
    else if (result.status === 'guard')
      this.#note(this.#red(`(stopped: ${result.error?.message ?? result.guard})`));
    else if (result.status === 'error') {
      const conflict = conflictMessage(result.error);
      this.#note(
        this.#red(conflict ? `mh: ${conflict}` : `error: ${result.error?.message ?? 'unknown'}`),
      );
    } else if (result.status === 'interrupted') {
      // The waiting calls are asked about, or listed, by the REPL.
    } else if (result.text === '' && result.newMessages.length <= 1)
      this.#note(this.#dim('(the model returned an empty answer)'));
  }
}

/** Whether the model stopped at its output limit: the run completed, but its answer did not. */
function isCutOff(result: RunResult): boolean {
  return result.status === 'completed' && result.stopReason === 'max-tokens';
}

/** What the user reads when an answer was cut off: that it is incomplete, and what to do. */
function cutOffNotice(maxOutputTokens: number | undefined): string {
  const limit =
    maxOutputTokens === undefined
      ? "the model's output limit (the provider's default)"
      : `the output limit (--max-output-tokens ${maxOutputTokens})`;
  return `mh: the answer was cut off at ${limit}; it is incomplete. Raise the limit with --max-output-tokens N, or ask for a shorter answer`;
}

/** The exit code for a finished run. */
export function exitCodeOf(result: RunResult): number {
  if (isCutOff(result)) return CUT_OFF_EXIT_CODE;
  if (result.status === 'completed') return 0;
  if (result.status === 'cancelled') return 130;
  if (result.status === 'interrupted') return APPROVAL_EXIT_CODE;
  return 1;
}

/** One line per compaction: what it did and what it saved (or why it did nothing). */
export function compactionLine(record: CompactionRecord): string {
  const sizes = `${record.tokensBefore} → ${record.tokensAfter} tokens`;
  const cost = record.costUsd > 0 ? `, $${record.costUsd.toFixed(4)}` : '';
  switch (record.stage) {
    case 'trim':
      return `(compaction: trimmed ${record.trimmedMessageIds.length} tool result(s), ${sizes})`;
    case 'summary':
      return `(compaction: summarised ${record.foldedMessageIds.length} message(s), ${sizes}${cost})`;
    case 'drop':
      return `(compaction: dropped ${record.foldedMessageIds.length} message(s) — ${record.reason}; ${sizes})`;
    case 'skipped':
      return `(compaction skipped: ${record.reason}${cost})`;
  }
}

/**
 * The worse of two exit codes of a piped REPL's lines: a cut-off answer (4) was at least
 * answered, so it counts as less bad than any other failure; the others keep their numeric order.
 */
export function worseExitCode(a: number, b: number): number {
  // A cut-off answer, then calls waiting for approval, count for less than any failure.
  const rank = (code: number): number =>
    code === CUT_OFF_EXIT_CODE ? 0.5 : code === APPROVAL_EXIT_CODE ? 0.75 : code;
  return rank(b) > rank(a) ? b : a;
}
