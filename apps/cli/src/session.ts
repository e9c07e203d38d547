import type { Agent, RunResult } from '@mh/sdk';
import { messageText } from '@mh/sdk';
import { HELP } from './help.js';
import { EventRenderer, exitCodeOf, type Output } from './render.js';

/**
 * Runs prompts against one agent and owns Ctrl-C: the first interrupt cancels the running answer,
 * a second one (before the next prompt) exits with 130.
 */
export class CliSession {
  readonly #agent: Agent;
  readonly #output: Output;
  readonly #exit: (code: number) => void;
  #current: AbortController | undefined;
  #interrupts = 0;

  constructor(agent: Agent, output: Output, exit: (code: number) => void) {
    this.#agent = agent;
    this.#output = output;
    this.#exit = exit;
  }

  /** Handles one Ctrl-C (SIGINT). */
  interrupt(): void {
    this.#interrupts++;
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

  /** Answers one prompt, streaming it; resolves with the run's exit code. */
  async ask(prompt: string): Promise<number> {
    this.#interrupts = 0;
    const controller = new AbortController();
    this.#current = controller;
    const renderer = new EventRenderer(this.#output);
    let result: RunResult | undefined;
    try {
      for await (const event of this.#agent.stream(prompt, { signal: controller.signal })) {
        renderer.render(event);
        if (event.type === 'run-end') result = event.result;
      }
    } finally {
      this.#current = undefined;
    }
    return result ? exitCodeOf(result) : 1;
  }

  /** Handles a REPL line: a command, a prompt, or nothing. Returns the run's exit code, or `exit`. */
  async line(text: string): Promise<number | 'exit'> {
    const trimmed = text.trim();
    this.#interrupts = 0;
    if (trimmed === '') return 0;
    if (trimmed === '/exit' || trimmed === '/quit') return 'exit';
    if (trimmed === '/help') {
      this.#output.out.write(HELP);
      return 0;
    }
    if (trimmed === '/reset') {
      this.#agent.reset();
      this.#output.err.write('(conversation cleared)\n');
      return 0;
    }
    if (trimmed === '/history') {
      for (const message of this.#agent.history) {
        const calls = message.content
          .filter((block) => block.type === 'tool_use')
          .map((block) => block.name);
        const results = message.content.filter((block) => block.type === 'tool_result').length;
        const text = messageText(message).replace(/\s+/g, ' ').slice(0, 100);
        const extra = [
          calls.length ? `calls: ${calls.join(', ')}` : '',
          results ? `${results} result(s)` : '',
        ]
          .filter(Boolean)
          .join('; ');
        this.#output.out.write(`${message.role.padEnd(9)} ${text}${extra ? ` [${extra}]` : ''}\n`);
      }
      return 0;
    }
    if (trimmed.startsWith('/')) {
      this.#output.err.write(`unknown command ${trimmed.split(/\s/)[0]} (try /help)\n`);
      return 2;
    }
    return this.ask(trimmed);
  }
}
