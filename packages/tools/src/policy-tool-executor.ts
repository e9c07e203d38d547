import {
  type Clock,
  ConfigError,
  type Permission,
  type PermissionPolicy,
  systemClock,
  type Tool,
  type ToolCallPreview,
  type ToolExecutionContext,
  type ToolExecutor,
  type ToolOutcome,
  type ToolSpec,
  type ToolUseBlock,
} from '@mh/core';
import { AsyncQueue, assertOptions } from '@mh/core/internal';
import { callBatches } from './call-batches.js';
import { type ApproveCallback, defaultPermissionPolicy } from './default-permission-policy.js';
import { type CallSettings, executeCall } from './execute-call.js';
import { previewCall } from './preview-call.js';
import { ToolRegistry } from './tool-registry.js';
import { resolveToolRetry, type ToolRetryOptions } from './tool-retry.js';

/** The default cap on a result's text, in characters. */
export const DEFAULT_MAX_RESULT_CHARS = 50_000;

const EXECUTOR_OPTION_KEYS: readonly string[] = [
  'registry',
  'tools',
  'policy',
  'grants',
  'approve',
  'maxResultChars',
  'retry',
  'clock',
];

/** Settings of `PolicyToolExecutor`. Give `registry` or `tools`, not both. */
export interface PolicyToolExecutorOptions {
  /** The tools, as a registry (later registrations are seen). */
  readonly registry?: ToolRegistry;
  /** The tools, as a list (a registry is built from it). */
  readonly tools?: readonly Tool[];
  /** Decides each call; replaces the default policy, so give it instead of `grants`/`approve`. */
  readonly policy?: PermissionPolicy;
  /** For the default policy: permissions granted up front, e.g. `['write']`. */
  readonly grants?: readonly Permission[];
  /** For the default policy: asked about calls whose permission is not granted. */
  readonly approve?: ApproveCallback;
  /** Cap on a result's text in characters (default 50,000); head and tail are kept. */
  readonly maxResultChars?: number;
  /** Retries of idempotent tools on transient errors. */
  readonly retry?: ToolRetryOptions;
  /** Times timeouts, backoff and durations (default: the system clock). */
  readonly clock?: Clock;
}

/** Marks the batch's abort in a race against the next outcome. */
const ABORTED: unique symbol = Symbol('aborted');

/**
 * Runs one turn's tool calls: the `ToolExecutor` (the port of `@mh/core`) that applies a
 * permission policy. It checks arguments and permissions, times each call out, runs consecutive
 * `read` calls in parallel and `write`/`exec` calls one at a time in the model's order, retries
 * idempotent tools on transient errors, caps result size, and turns every failure into an
 * `isError` result the model can act on.
 *
 * @example
 * ```ts
 * import { PolicyToolExecutor, ToolRegistry, calculatorTool } from '@mh/tools';
 *
 * const executor = new PolicyToolExecutor({ registry: new ToolRegistry([calculatorTool()]) });
 * const input = { expression: '2^10' };
 * const calls = [{ type: 'tool_use', id: 'c1', name: 'calculator', input }] as const;
 * for await (const outcome of executor.execute(calls, { signal: AbortSignal.timeout(5_000) })) {
 *   console.log(outcome.status, outcome.result.content);
 * }
 * ```
 */
export class PolicyToolExecutor implements ToolExecutor {
  readonly #registry: ToolRegistry;
  readonly #settings: CallSettings;

  /** Creates an executor. Throws `ConfigError` naming the bad option. */
  constructor(options: PolicyToolExecutorOptions) {
    // A misspelt key (`grant` for `grants`) would otherwise be dropped without a word.
    assertOptions(options, EXECUTOR_OPTION_KEYS, '');
    if (options.registry !== undefined && options.tools !== undefined) {
      throw new ConfigError('tools', 'give either registry or tools, not both');
    }
    // Duck-typed: a registry from another copy of this package is still a registry.
    if (options.registry !== undefined && typeof options.registry?.get !== 'function') {
      throw new ConfigError('registry', 'expected a ToolRegistry');
    }
    if (options.tools !== undefined && !Array.isArray(options.tools)) {
      throw new ConfigError('tools', 'expected an array of tools');
    }
    this.#registry = options.registry ?? new ToolRegistry(options.tools ?? []);
    if (
      options.policy !== undefined &&
      (options.grants !== undefined || options.approve !== undefined)
    ) {
      throw new ConfigError('policy', 'give either policy or grants/approve, not both');
    }
    if (options.policy !== undefined && typeof options.policy?.check !== 'function') {
      throw new ConfigError('policy', 'expected a PermissionPolicy with a check(request) method');
    }
    const maxResultChars = options.maxResultChars ?? DEFAULT_MAX_RESULT_CHARS;
    if (!Number.isInteger(maxResultChars) || maxResultChars < 1) {
      throw new ConfigError('maxResultChars', `expected an integer >= 1, got ${maxResultChars}`);
    }
    const { maxAttempts, isTransient, backoff } = resolveToolRetry(options.retry);
    this.#settings = {
      registry: this.#registry,
      policy:
        options.policy ??
        defaultPermissionPolicy({ grants: options.grants, approve: options.approve }),
      maxResultChars,
      maxAttempts,
      backoff,
      isTransient,
      clock: options.clock ?? systemClock,
    };
  }

  /** The registry the executor looks tools up in. */
  get registry(): ToolRegistry {
    return this.#registry;
  }

  /** The tools to advertise, in registration order. */
  specs(): readonly ToolSpec[] {
    return this.#registry.specs();
  }

  /**
   * Says what `execute` would do with `call` without running it or asking anyone: `unknown-tool`
   * and `invalid-arguments` as `execute` finds them, then the policy's `preview` (`run`, `denied`
   * with its reason, or `ask` where the default policy would call `approve`, which it never calls
   * here). A custom policy without `preview` gives `undecidable`.
   */
  preview(call: ToolUseBlock): Promise<ToolCallPreview> {
    return previewCall(call, this.#registry, this.#settings.policy);
  }

  /**
   * Runs `calls` and yields one outcome per call as each finishes. Calls the `around` hook once
   * per call it starts, with all of that call's work inside. Once `context.signal` aborts it
   * starts no more calls, stops waiting and yields nothing more (the loop answers the rest).
   * It throws only when a hook throws, never for a tool's failure.
   */
  async *execute(
    calls: readonly ToolUseBlock[],
    context: ToolExecutionContext,
  ): AsyncGenerator<ToolOutcome, void, undefined> {
    const { signal } = context;
    if (signal.aborted || calls.length === 0) return;
    const outcomes = new AsyncQueue<ToolOutcome>();
    let onAbort = (): void => {};
    const aborted = new Promise<typeof ABORTED>((resolve) => {
      onAbort = (): void => resolve(ABORTED);
      signal.addEventListener('abort', onAbort, { once: true });
    });
    // Set when the consumer stops iterating early: the calls not yet started then never start.
    const consumer = { stopped: false };
    void this.#runBatches(calls, context, outcomes, consumer);
    try {
      for (;;) {
        const next = await Promise.race([outcomes.next(), aborted]);
        // Checked again because both may be settled: the abort wins over an outcome.
        if (next === ABORTED || next.done || signal.aborted) return;
        yield next.value;
      }
    } finally {
      consumer.stopped = true;
      signal.removeEventListener('abort', onAbort);
    }
  }

  async #runBatches(
    calls: readonly ToolUseBlock[],
    context: ToolExecutionContext,
    outcomes: AsyncQueue<ToolOutcome>,
    consumer: { readonly stopped: boolean },
  ): Promise<void> {
    const { signal, hooks } = context;
    const permissionOf = (name: string): Permission | undefined =>
      this.#registry.get(name)?.permission;
    try {
      for (const [index, batch] of callBatches(calls, permissionOf).entries()) {
        // One macrotask between batches lets a consumer that just got an outcome abort or stop
        // before the next write or exec call starts.
        if (index > 0) await new Promise((resolve) => setImmediate(resolve));
        if (signal.aborted || consumer.stopped) break;
        await Promise.all(
          batch.map(async (call) => {
            const execute = (): Promise<ToolOutcome> => executeCall(call, signal, this.#settings);
            outcomes.push(await (hooks ? hooks.around(call, execute) : execute()));
          }),
        );
      }
      outcomes.close();
    } catch (error) {
      outcomes.fail(error);
    }
  }
}
