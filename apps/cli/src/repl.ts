import type { Agent, AgentEvent, Decision, RunResult, SessionStore } from '@mh/sdk';
import { ConfigError } from '@mh/sdk';
import { type Ask, askDecisions, waitingNotice } from './approvals.js';
import { conflictMessage } from './conflict-message.js';
import { EventRenderer, exitCodeOf, type Output } from './event-renderer.js';
import { REPL_HELP } from './help.js';
import { messageSummary, sessionCommand } from './session-commands.js';
import { UsageError } from './usage-error.js';

/**
 * The read-eval-print loop (and the one-shot prompt): runs prompts against one agent and owns
 * Ctrl-C: the first interrupt cancels the running answer, a second one (before the next prompt)
 * exits with 130. With piped input (`batch`) a second one ends the batch whenever it comes, the
 * running answer cancelled and recorded first.
 */
export class Repl {
  readonly #agent: Agent;
  readonly #output: Output;
  readonly #exit: (code: number) => void;
  #current: AbortController | undefined;
  #interrupts = 0;
  #batch = false;
  #stopCode: number | undefined;

  readonly #store: SessionStore | undefined;

  readonly #afterRun: (() => void) | undefined;

  /** Asks at the terminal about calls that wait for approval; without it mh says how to answer. */
  #ask: Ask | undefined;
  /** `--db X --session S`: how a later mh answers waiting calls; undefined without a session. */
  #resumeFlags: string | undefined;
  /** Tools the person allowed for the rest of this mh (`a` at the prompt). */
  readonly #always = new Set<string>();

  constructor(
    agent: Agent,
    output: Output,
    exit: (code: number) => void,
    store?: SessionStore,
    afterRun?: () => void,
  ) {
    this.#afterRun = afterRun;
    this.#agent = agent;
    this.#store = store;
    this.#output = output;
    this.#exit = exit;
  }

  /**
   * Piped input: interrupts are not forgotten at the next line, since a script's lines follow one
   * another with no prompt between them to press Ctrl-C at.
   */
  batch(): void {
    this.#batch = true;
  }

  /**
   * How calls waiting for approval are answered: `ask` asks at the terminal (y/N/a); without it
   * mh prints them with `mh RESUME --approve ID` (`resumeFlags`, with a session) and the run's
   * exit code is `APPROVAL_EXIT_CODE`.
   */
  approvals(ask: Ask | undefined, resumeFlags: string | undefined): void {
    this.#ask = ask;
    this.#resumeFlags = resumeFlags;
  }

  /** Handles one Ctrl-C (SIGINT). */
  interrupt(): void {
    this.#interrupts++;
    if (this.#interrupts >= 2 && this.#batch) {
      this.stop(130);
      return;
    }
    if (this.#interrupts >= 2) {
      this.#output.err.write('\n');
      this.#exit(130);
      return;
    }
    if (this.#current) {
      this.#current.abort();
    } else {
      this.#output.err.write('\n(press Ctrl-C again to exit, or type /exit)\n');
    }
  }

  /**
   * Finishes what a crash interrupted, or the calls that wait for approval (answered by
   * `decisions`, else asked about), streaming it; resolves with an exit code (0: nothing to do).
   */
  async resume(decisions?: readonly Decision[]): Promise<number> {
    return this.#drive((options) =>
      this.#agent.resumeStream(decisions ? { ...options, decisions } : options),
    );
  }

  /** Answers one prompt, streaming it; resolves with the run's exit code. */
  async ask(prompt: string): Promise<number> {
    return this.#drive((options) => this.#agent.stream(prompt, options));
  }

  /**
   * Exits with `code` once the running answer, if any, is cancelled the way Ctrl-C cancels it (so
   * the agent records and commits the cancel); at once when nothing runs or on a second stop.
   */
  stop(code: number): void {
    const stopping = this.#stopCode !== undefined;
    this.#stopCode = code;
    if (this.#current && !stopping) {
      this.#current.abort();
      return;
    }
    this.#output.err.write('\n');
    this.#exit(code);
  }

  async #drive(
    start: (options: { signal: AbortSignal }) => AsyncIterable<AgentEvent>,
  ): Promise<number> {
    if (!this.#batch) this.#interrupts = 0;
    const controller = new AbortController();
    this.#current = controller;
    const renderer = new EventRenderer(this.#output);
    let result: RunResult | undefined;
    try {
      for await (const event of start({ signal: controller.signal })) {
        renderer.render(event);
        if (event.type === 'run-end') result = event.result;
      }
    } finally {
      this.#current = undefined;
      // The run ended cancelled, its cancel committed: now leave as `stop` asked.
      if (this.#stopCode !== undefined) this.#exit(this.#stopCode);
    }
    if (result) this.#afterRun?.();
    if (result?.status === 'interrupted' && result.interrupts) return this.#waiting(result);
    return result ? exitCodeOf(result) : 0;
  }

  /**
   * A run ended with calls waiting for a person (an approval, or an answer to a tool's question):
   * at a terminal, ask about each and resume with the answers; otherwise print them and how to
   * answer them later.
   */
  async #waiting(result: RunResult): Promise<number> {
    const interrupts = result.interrupts ?? [];
    const ask = this.#ask;
    if (ask === undefined) {
      this.#output.err.write(waitingNotice(interrupts, this.#resumeFlags));
      return exitCodeOf(result);
    }
    const note = (text: string): void => {
      this.#output.err.write(text);
    };
    const decisions = await askDecisions(interrupts, ask, this.#always, note);
    return this.resume(decisions);
  }

  /** Handles a REPL line: a command, a prompt, or nothing. Returns the run's exit code, or `exit`. */
  async line(text: string): Promise<number | 'exit'> {
    const trimmed = text.trim();
    if (!this.#batch) this.#interrupts = 0;
    if (trimmed === '') return 0;
    if (trimmed === '/exit' || trimmed === '/quit') return 'exit';
    if (trimmed === '/help') {
      this.#output.out.write(REPL_HELP);
      return 0;
    }
    if (trimmed === '/reset') {
      const before = this.#agent.session?.branch;
      try {
        await this.#agent.reset();
      } catch (error) {
        this.#output.err.write(`${commandError(trimmed, error)}\n`);
        return 1;
      }
      // With a session the conversation goes on from empty on a new branch; the old one is kept
      // (an empty conversation, or one not stored yet, needs no new branch).
      const branch = this.#agent.session?.branch;
      this.#output.err.write(
        branch === undefined || branch === before
          ? '(conversation cleared)\n'
          : `(conversation cleared: now on new branch ${branch}; ${before} is kept)\n`,
      );
      return 0;
    }
    if (trimmed === '/history') {
      for (const message of this.#agent.history)
        this.#output.out.write(`${message.role.padEnd(9)} ${messageSummary(message, 100)}\n`);
      return 0;
    }
    const write = (text: string): void => {
      this.#output.out.write(text);
    };
    try {
      const handled = await sessionCommand(this.#agent, this.#store, trimmed, write);
      if (handled !== undefined) return handled;
    } catch (error) {
      // One line in the command's words; the REPL (and a piped script) goes on with the next line.
      this.#output.err.write(`${commandError(trimmed, error)}\n`);
      return error instanceof UsageError || ConfigError.isInstance(error) ? 2 : 1;
    }
    if (trimmed.startsWith('/')) {
      this.#output.err.write(`unknown command ${trimmed.split(/\s/)[0]} (try /help)\n`);
      return 2;
    }
    return this.ask(trimmed);
  }
}

/**
 * A failed REPL command as one line that starts with the command as typed: `/switch nope:
 * unknown branch …`, not the store's option name (`branch:`, `newBranch:`).
 */
function commandError(command: string, error: unknown): string {
  if (ConfigError.isInstance(error))
    return `${command}: ${error.message.slice(`${error.field}: `.length)}`;
  const conflict = conflictMessage(error);
  if (conflict !== undefined) return `${command}: ${conflict}`;
  return `${command}: ${error instanceof Error ? error.message : String(error)}`;
}
