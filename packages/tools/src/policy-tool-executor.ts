import {
  type ApprovalRequest,
  type Clock,
  ConfigError,
  type Permission,
  type PermissionPolicy,
  systemClock,
  type Tool,
  type ToolCallEvent,
  type ToolCallPreview,
  type ToolExecutionContext,
  type ToolExecutor,
  type ToolSpec,
  type ToolUseBlock,
} from '@mh/core';
import { assertOptions, parallelCallEvents, thrownText } from '@mh/core/internal';
import { callBatches } from './call-batches.js';
import { type ApproveCallback, defaultPermissionPolicy } from './default-permission-policy.js';
import { admitCall, type CallSettings, executeCall } from './execute-call.js';
import { previewCall } from './preview-call.js';
import { ToolRegistry } from './tool-registry.js';
import { resolveToolRetry, type ToolRetryOptions } from './tool-retry.js';

/** The default cap on a result's text, in characters. */
export const DEFAULT_MAX_RESULT_CHARS = 50_000;

/** The `approve` of the default policy under `onAsk: 'interrupt'`: an unapproved call is refused. */
const refuseUnapproved: ApproveCallback = () => false;

const EXECUTOR_OPTION_KEYS: readonly string[] = [
  'registry',
  'tools',
  'policy',
  'grants',
  'approve',
  'onAsk',
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
  /**
   * What a call the policy would ask about (its `preview` answers `'ask'`; with the default
   * policy, a `write` or `exec` call not granted) does when no `approve` callback answers:
   * `'deny'` (the default) refuses it; `'interrupt'` makes it wait for a person (`approval` says
   * why, e.g. `write_file needs the write permission`), so the run ends `interrupted` and
   * `agent.resume({ decisions })` runs or refuses it. Not with `approve`.
   */
  readonly onAsk?: 'deny' | 'interrupt';
  /** Cap on a result's text in characters (default 50,000); head and tail are kept. */
  readonly maxResultChars?: number;
  /** Retries of idempotent tools on transient errors. */
  readonly retry?: ToolRetryOptions;
  /** Times timeouts, backoff and durations (default: the system clock). */
  readonly clock?: Clock;
}

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
 * for await (const event of executor.execute(calls, { signal: AbortSignal.timeout(5_000) })) {
 *   if (event.type === 'tool-end') console.log(event.outcome.status, event.outcome.result.content);
 * }
 * ```
 */
export class PolicyToolExecutor implements ToolExecutor {
  readonly #registry: ToolRegistry;
  readonly #settings: CallSettings;
  readonly #interruptOnAsk: boolean;

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
    const onAsk = options.onAsk ?? 'deny';
    if (onAsk !== 'deny' && onAsk !== 'interrupt') {
      throw new ConfigError('onAsk', `expected 'deny' or 'interrupt', got ${String(onAsk)}`);
    }
    if (onAsk === 'interrupt' && options.approve !== undefined) {
      throw new ConfigError('onAsk', "give either approve or onAsk: 'interrupt', not both");
    }
    this.#interruptOnAsk = onAsk === 'interrupt';
    const maxResultChars = options.maxResultChars ?? DEFAULT_MAX_RESULT_CHARS;
    if (!Number.isInteger(maxResultChars) || maxResultChars < 1) {
      throw new ConfigError('maxResultChars', `expected an integer >= 1, got ${maxResultChars}`);
    }
    const { maxAttempts, isTransient, backoff } = resolveToolRetry(options.retry);
    this.#settings = {
      registry: this.#registry,
      policy:
        options.policy ??
        defaultPermissionPolicy({
          grants: options.grants,
          // With 'interrupt' the policy asks (its preview says 'ask'); `approval` turns that into
          // a wait, and a call that reached `check` unapproved is refused.
          approve: this.#interruptOnAsk ? refuseUnapproved : options.approve,
        }),
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
   * Why `call` waits for a person: its tool's `needsApproval` holds for its parsed arguments, or
   * (with `onAsk: 'interrupt'`) the policy's `preview` answers `'ask'`. An unknown tool or bad
   * arguments need none (`execute` answers them). A `needsApproval` function that throws counts
   * as needing approval (the safe side), its message in the reason.
   */
  async approval(call: ToolUseBlock): Promise<ApprovalRequest | undefined> {
    // The loop asks for every call: a tool that can never wait is answered before its arguments
    // are parsed (`execute` parses them once, as it always did).
    const rule = this.#registry.get(call.name)?.needsApproval;
    if (!this.#interruptOnAsk && (rule === undefined || rule === false)) return undefined;
    const admitted = admitCall(call, this.#registry);
    if (!admitted.ok) return undefined;
    const { tool, input } = admitted;
    if (rule === undefined || rule === false) return this.#askApproval(call, tool, input);
    const permission = tool.permission;
    if (rule === true) return { reason: `${tool.name} needs approval`, permission };
    try {
      if (!(await rule(input, { callId: call.id }))) return this.#askApproval(call, tool, input);
      return { reason: `${tool.name} needs approval`, permission };
    } catch (error) {
      return { reason: thrownText(`${tool.name}'s needsApproval`, error), permission };
    }
  }

  /** With `onAsk: 'interrupt'`, a wait for a call the policy would ask about. */
  async #askApproval(
    call: ToolUseBlock,
    tool: Tool,
    input: unknown,
  ): Promise<ApprovalRequest | undefined> {
    const policy = this.#settings.policy;
    if (!this.#interruptOnAsk || typeof policy.preview !== 'function') return undefined;
    const permission = tool.permission;
    const request = { toolName: tool.name, permission, input, callId: call.id };
    let answer: Awaited<ReturnType<NonNullable<PermissionPolicy['preview']>>>;
    try {
      answer = await policy.preview(request);
    } catch {
      return undefined; // `execute` denies it, with the policy's failure as the reason.
    }
    if (answer !== 'ask') return undefined;
    return { reason: `${tool.name} needs the ${permission} permission`, permission };
  }

  /**
   * Runs `calls` in groups (consecutive `read` calls side by side, each `write`/`exec` call alone,
   * in the model's order) and yields each call's `tool-start` before anything is done for it:
   * the look-up, argument checks and permission policy come after the start, with the run, once
   * the consumer pulls again; then the group's `tool-end`s in completion order. Once
   * `context.signal` aborts it starts no more calls, stops waiting and yields nothing more (the
   * loop answers the rest). Calls in `context.approved` skip the permission policy (a person
   * approved them). It throws only when `context.scope` throws, never for a tool's failure.
   */
  async *execute(
    calls: readonly ToolUseBlock[],
    context: ToolExecutionContext,
  ): AsyncGenerator<ToolCallEvent, void, undefined> {
    const { signal } = context;
    const permissionOf = (name: string): Permission | undefined =>
      this.#registry.get(name)?.permission;
    // Once a call stopped on a question, later writes and execs wait with it (left unstarted).
    let asked = false;
    for (const [index, batch] of callBatches(calls, permissionOf).entries()) {
      // One macrotask between groups lets a consumer that just got an outcome abort before the
      // next write or exec call starts, even when it aborts from another task.
      if (index > 0) await new Promise((resolve) => setImmediate(resolve));
      if (signal.aborted) return;
      if (asked && batch.some((call) => permissionOf(call.name) !== 'read')) continue;
      const events = parallelCallEvents(batch, context, (call) =>
        executeCall(
          call,
          signal,
          this.#settings,
          context.approved?.has(call.id) === true,
          context.answers?.get(call.id),
        ),
      );
      for await (const event of events) {
        if (event.type === 'tool-end' && event.outcome.status === 'interrupted') asked = true;
        yield event;
      }
    }
  }
}
