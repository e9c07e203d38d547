import {
  type BackoffOptions,
  type Clock,
  type ParseResult,
  type PermissionDecision,
  PermissionDeniedError,
  type PermissionPolicy,
  questionAsker,
  retry,
  type Tool,
  type ToolCallStatus,
  ToolInputError,
  type ToolOutcome,
  ToolTimeoutError,
  type ToolUseBlock,
  toolResult,
} from '@mh/core';
import { thrownText } from '@mh/core/internal';
import { normalizeOutput } from './normalize-output.js';
import { runAttempt } from './run-attempt.js';
import type { ToolRegistry } from './tool-registry.js';
import { truncateContent } from './truncate-text.js';

/** How much of a model's broken JSON to quote back to it. */
const RAW_INPUT_EXCERPT_CHARS = 200;

/** What answering one call needs from the executor, resolved from its options. */
export interface CallSettings {
  /** Where tools are looked up. */
  readonly registry: ToolRegistry;
  /** Decides whether a call may run. */
  readonly policy: PermissionPolicy;
  /** Cap on a result's text, in characters. */
  readonly maxResultChars: number;
  /** Attempts per call of an idempotent tool, the first included. */
  readonly maxAttempts: number;
  /** Backoff between attempts. */
  readonly backoff: BackoffOptions;
  /** Whether a thrown error may go away on a retry. */
  readonly isTransient: (error: unknown) => boolean;
  /** Times timeouts, backoff and durations. */
  readonly clock: Clock;
}

/**
 * Answers one call: look-up, argument checks, policy, then runs (with a timeout per attempt and
 * retries for idempotent tools on transient errors). `approved` (a person said yes to this call)
 * skips the policy. The tool's questions (`context.interrupt`) get `answers` in order; one past
 * them ends the call `interrupted`, whatever the tool then did. Every failure becomes an
 * `isError` outcome; this never throws.
 */
export async function executeCall(
  call: ToolUseBlock,
  signal: AbortSignal,
  settings: CallSettings,
  approved = false,
  answers: readonly unknown[] = [],
): Promise<ToolOutcome> {
  const { clock } = settings;
  const startedAt = clock.now();
  const finish = (
    status: ToolCallStatus,
    output: { content: ToolOutcome['result']['content']; isError: boolean },
    attempts: number,
    tool?: Tool,
  ): ToolOutcome => ({
    call,
    result: {
      type: 'tool_result',
      toolUseId: call.id,
      content: truncateContent(output.content, settings.maxResultChars),
      isError: output.isError || status !== 'ok',
    },
    status,
    attempts,
    durationMs: Math.max(0, clock.now() - startedAt),
    ...(tool ? { permission: tool.permission } : {}),
  });
  const fail = (status: ToolCallStatus, text: string, attempts = 0, tool?: Tool): ToolOutcome =>
    finish(
      status,
      { content: toolResult(call.id, text, true).content, isError: true },
      attempts,
      tool,
    );

  const admitted = admitCall(call, settings.registry);
  if (!admitted.ok) return fail(admitted.status, admitted.text, 0, admitted.tool);
  const { tool, input } = admitted;
  // A person already approved this call (it waited for them): the policy is not asked again.
  const decision: PermissionDecision = approved
    ? { allow: true }
    : await checkPolicy(settings.policy, tool, input, call.id, signal);
  if (signal.aborted) return fail('cancelled', `Cancelled: ${tool.name} did not run.`, 0, tool);
  if (!decision.allow) {
    const denial = new PermissionDeniedError(tool.name, tool.permission, decision.reason);
    return fail('denied', denial.message, 0, tool);
  }

  let attempts = 0;
  let asker = questionAsker(call.id, answers);
  const asked = (): ToolOutcome | undefined => {
    const question = asker.pending;
    if (question === undefined) return undefined;
    const text = `Waiting for the user's answer to: ${question.question}`;
    return { ...fail('interrupted', text, attempts, tool), question };
  };
  try {
    const output = await retry(
      (attempt) => {
        attempts = attempt;
        // Each attempt runs the tool from the start: its questions get the answers from the first.
        asker = questionAsker(call.id, answers);
        const { interrupt } = asker;
        return runAttempt(tool, { input, callId: call.id, attempt, signal, clock, interrupt });
      },
      {
        ...settings.backoff,
        maxAttempts: tool.idempotent === true ? settings.maxAttempts : 1,
        shouldRetry: (error) =>
          !signal.aborted && asker.pending === undefined && isTransientSafely(settings, error),
        signal,
        clock,
      },
    );
    const interrupted = asked();
    if (interrupted) return interrupted;
    const normalized = normalizeOutput(tool.name, output);
    return finish(normalized.isError ? 'error' : 'ok', normalized, attempts, tool);
  } catch (error) {
    if (signal.aborted)
      return fail('cancelled', `Cancelled: ${tool.name} was stopped.`, attempts, tool);
    const interrupted = asked();
    if (interrupted) return interrupted;
    if (ToolTimeoutError.isInstance(error)) return fail('timeout', error.message, attempts, tool);
    return fail('error', errorText(tool.name, error), attempts, tool);
  }
}

/** A call past look-up and argument checks, or why it stopped there. */
export type AdmittedCall =
  | { readonly ok: true; readonly tool: Tool; readonly input: unknown }
  | {
      readonly ok: false;
      readonly status: 'unknown-tool' | 'invalid-arguments';
      /** What the model reads. */
      readonly text: string;
      /** The tool, when it exists. */
      readonly tool?: Tool;
    };

/**
 * Looks the call's tool up and validates its arguments: the checks before the policy, shared by
 * `executeCall` and `previewCall` so a preview rejects exactly what a run would.
 */
export function admitCall(call: ToolUseBlock, registry: ToolRegistry): AdmittedCall {
  const tool = registry.get(call.name);
  if (!tool)
    return {
      ok: false,
      status: 'unknown-tool',
      text: unknownToolText(call.name, registry.names()),
    };
  if (call.rawInput !== undefined) {
    const issue = `could not parse JSON arguments: ${jsonErrorOf(call.rawInput)}`;
    const text = new ToolInputError(tool.name, [issue]).message;
    return { ok: false, status: 'invalid-arguments', text, tool };
  }
  const parsed = safeParse(tool, call.input);
  if (!parsed.success) {
    const text = new ToolInputError(tool.name, parsed.issues).message;
    return { ok: false, status: 'invalid-arguments', text, tool };
  }
  return { ok: true, tool, input: parsed.value };
}

/** The denial reason for a policy that threw: a failed check never lets a call run. */
export function policyFailureReason(error: unknown): string {
  return `the permission check failed: ${thrownText('The permission policy', error)}`;
}

function unknownToolText(name: string, available: readonly string[]): string {
  return available.length === 0
    ? `Unknown tool: ${name}. No tools are available.`
    : `Unknown tool: ${name}. Available tools: ${available.join(', ')}`;
}

/** The parser's own complaint plus what the model sent, so it can see what to fix. */
function jsonErrorOf(rawInput: string): string {
  let reason = 'invalid JSON';
  try {
    JSON.parse(rawInput);
  } catch (error) {
    if (error instanceof Error) reason = error.message;
  }
  const excerpt =
    rawInput.length > RAW_INPUT_EXCERPT_CHARS
      ? `${rawInput.slice(0, RAW_INPUT_EXCERPT_CHARS)}…`
      : rawInput;
  return `${reason}. Received: ${excerpt}`;
}

/** A schema from outside `@mh/tools` may throw despite the contract; that is still bad input. */
function safeParse(tool: Tool, input: unknown): ParseResult<unknown> {
  try {
    return tool.schema.parse(input);
  } catch (error) {
    return {
      success: false,
      issues: [`(root): ${thrownText(`The argument parser of ${tool.name}`, error)}`],
    };
  }
}

/**
 * A policy that fails (an approval prompt that crashed) denies: never run on an unknown answer.
 * An abort stops the wait, since a human may never answer.
 */
async function checkPolicy(
  policy: PermissionPolicy,
  tool: Tool,
  input: unknown,
  callId: string,
  signal: AbortSignal,
): Promise<PermissionDecision> {
  const cancelled: PermissionDecision = { allow: false, reason: 'cancelled' };
  if (signal.aborted) return cancelled;
  let onAbort = (): void => {};
  const aborted = new Promise<PermissionDecision>((resolve) => {
    onAbort = (): void => resolve(cancelled);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  const request = { toolName: tool.name, permission: tool.permission, input, callId };
  try {
    return await Promise.race([(async () => policy.check(request))(), aborted]);
  } catch (error) {
    return { allow: false, reason: policyFailureReason(error) };
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

/** What the model reads for a thrown failure; total, whatever a tool threw. */
function errorText(toolName: string, error: unknown): string {
  return thrownText(`Tool ${toolName}`, error);
}

/** A transient-error test that throws (on a hostile thrown value, say) means: do not retry. */
function isTransientSafely(settings: CallSettings, error: unknown): boolean {
  try {
    return settings.isTransient(error) === true;
  } catch {
    return false;
  }
}
