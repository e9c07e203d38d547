import {
  type ModelRequest,
  messageText,
  type Provider,
  type StreamEvent,
  type StreamOptions,
} from '@mh/core';
import { OracleProvider } from '../src/oracle/oracle-provider.js';
import type { Task } from '../src/tasks/task.js';

/**
 * One provider for every session of the suite, as a real model is: it recognises the task by its
 * prompts in the request and plays that task's oracle (`policyOf` may swap in a saboteur).
 */
export class SuiteOracle implements Provider {
  readonly name: string = 'suite-oracle';
  readonly #tasks: readonly Task[];
  readonly #policyOf: (task: Task) => Task['oracle'];

  constructor(
    tasks: readonly Task[],
    policyOf: (task: Task) => Task['oracle'] = (task) => task.oracle,
  ) {
    this.#tasks = tasks;
    this.#policyOf = policyOf;
  }

  stream(request: ModelRequest, options?: StreamOptions): AsyncIterable<StreamEvent> {
    const text = request.messages.map((message) => messageText(message)).join('\n');
    const task =
      this.#tasks.find((candidate) => candidate.prompts.some((prompt) => text.includes(prompt))) ??
      this.#tasks[0];
    if (!task) throw new Error('no tasks');
    return new OracleProvider(this.#policyOf(task), task.prompts).stream(request, options);
  }
}
