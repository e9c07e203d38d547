import {
  type ApprovalRequest,
  ConfigError,
  mapOutcomes,
  previewToolCall,
  type ToolCallEvent,
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
 * timeouts) are not fenced. It is `mapOutcomes(executor, fence)`: each outcome is fenced before the
 * loop sees it, so traces and the session journal record exactly what the model sees.
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
  readonly #boundary: string;
  readonly #fenced: ToolExecutor;

  /** Creates the wrapper; throws `ConfigError` for a missing executor or a bad boundary. */
  constructor(options: FencingExecutorOptions) {
    assertOptions(options, ['executor', 'boundary'], 'options');
    if (
      typeof options.executor?.execute !== 'function' ||
      typeof options.executor.specs !== 'function'
    ) {
      throw new ConfigError('executor', 'expected a ToolExecutor (with specs() and execute())');
    }
    const boundary = checkBoundary(options.boundary, 'boundary');
    this.#boundary = boundary;
    this.#fenced = mapOutcomes(options.executor, (outcome) => fence(outcome, boundary));
  }

  /** The boundary token of the fences. */
  get boundary(): string {
    return this.#boundary;
  }

  /** The wrapped executor's tools. */
  specs(): readonly ToolSpec[] {
    return this.#fenced.specs();
  }

  /**
   * The wrapped executor's preview (fencing changes no decision); `undecidable` when it has none.
   */
  preview(call: ToolUseBlock): Promise<ToolCallPreview> {
    return previewToolCall(this.#fenced, call);
  }

  /** The wrapped executor's answer: fencing never hides a call that waits for a person. */
  approval(call: ToolUseBlock): Promise<ApprovalRequest | undefined> {
    return this.#fenced.approval?.(call) ?? Promise.resolve(undefined);
  }

  /** Runs the calls through the wrapped executor; each `tool-end` carries the fenced result. */
  execute(
    calls: readonly ToolUseBlock[],
    context: ToolExecutionContext,
  ): AsyncIterable<ToolCallEvent> {
    return this.#fenced.execute(calls, context);
  }
}

/** The outcome with its result fenced, when a tool produced it. */
function fence(outcome: ToolOutcome, boundary: string): ToolOutcome {
  if (!FENCED_STATUSES.has(outcome.status)) return outcome;
  return { ...outcome, result: fenceToolResult(outcome.result, outcome.call.name, boundary) };
}
