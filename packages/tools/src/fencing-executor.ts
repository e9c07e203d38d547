import {
  ConfigError,
  previewToolCall,
  type ToolCallHooks,
  type ToolCallPreview,
  type ToolCallStatus,
  type ToolExecutionContext,
  type ToolExecutor,
  type ToolOutcome,
  type ToolSpec,
  type ToolUseBlock,
} from '@mh/core';
import { assertOptions, checkBoundary } from '@mh/core/internal';
import { fenceToolResult } from './tool-result-fence.js';

/** Outcomes whose content a tool produced; the others are the executor's own messages. */
const FENCED_STATUSES: ReadonlySet<ToolCallStatus> = new Set(['ok', 'error']);

/** Settings of `FencingExecutor`. */
export interface FencingExecutorOptions {
  /** The executor whose results are fenced. */
  readonly executor: ToolExecutor;
  /** The boundary token of the fences (see `newBoundary`, `fencingRule`). */
  readonly boundary: string;
}

/**
 * A `ToolExecutor` that fences the results tools produce (status `ok` or `error`) as untrusted
 * data, so the model can tell file contents or server output from instructions (the harness's
 * prompt-injection defence). The executor's own messages (denials, invalid arguments,
 * timeouts) are not fenced. Fencing happens inside the `around` hook, so traces and the session
 * journal record exactly what the model sees.
 *
 * @example
 * ```ts
 * import { fencingRule, newBoundary } from '@mh/core';
 * import { FencingExecutor, PolicyToolExecutor, workspaceTools } from '@mh/tools';
 *
 * const boundary = newBoundary();
 * const inner = new PolicyToolExecutor({ tools: workspaceTools({ root: '.' }) });
 * const executor = new FencingExecutor({ executor: inner, boundary });
 * const system = `You are a helpful assistant.\n\n${fencingRule(boundary)}`;
 * ```
 */
export class FencingExecutor implements ToolExecutor {
  readonly #inner: ToolExecutor;
  readonly #boundary: string;
  readonly #fenced = new WeakSet<ToolOutcome>();

  /** Creates the wrapper; throws `ConfigError` for a missing executor or a bad boundary. */
  constructor(options: FencingExecutorOptions) {
    assertOptions(options, ['executor', 'boundary'], 'options');
    if (
      typeof options.executor?.execute !== 'function' ||
      typeof options.executor.specs !== 'function'
    ) {
      throw new ConfigError('executor', 'expected a ToolExecutor (with specs() and execute())');
    }
    this.#inner = options.executor;
    this.#boundary = checkBoundary(options.boundary, 'boundary');
  }

  /** The boundary token of the fences. */
  get boundary(): string {
    return this.#boundary;
  }

  /** The wrapped executor's tools. */
  specs(): readonly ToolSpec[] {
    return this.#inner.specs();
  }

  /**
   * The wrapped executor's preview (fencing changes no decision); `undecidable` when it has none.
   */
  preview(call: ToolUseBlock): Promise<ToolCallPreview> {
    return previewToolCall(this.#inner, call);
  }

  /** Runs the calls through the wrapped executor and yields the outcomes with fenced results. */
  async *execute(
    calls: readonly ToolUseBlock[],
    context: ToolExecutionContext,
  ): AsyncGenerator<ToolOutcome, void, undefined> {
    const outer = context.hooks;
    const hooks: ToolCallHooks | undefined = outer && {
      around: (call, execute) => outer.around(call, async () => this.#fence(await execute())),
    };
    for await (const outcome of this.#inner.execute(calls, { ...context, hooks })) {
      yield this.#fence(outcome);
    }
  }

  #fence(outcome: ToolOutcome): ToolOutcome {
    if (this.#fenced.has(outcome) || !FENCED_STATUSES.has(outcome.status)) return outcome;
    const fenced = {
      ...outcome,
      result: fenceToolResult(outcome.result, outcome.call.name, this.#boundary),
    };
    this.#fenced.add(fenced);
    return fenced;
  }
}
