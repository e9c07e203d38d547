import {
  type ApprovalRequest,
  previewToolCall,
  type ToolCallEvent,
  type ToolCallPreview,
  type ToolExecutionContext,
  type ToolExecutor,
  type ToolOutcome,
  type ToolSpec,
  type ToolUseBlock,
  toolResult,
} from '@mh/core';
import type { KeyContext } from '../cassette/context.js';
import type { CassetteKey, ToolEntry } from '../cassette/format.js';
import { recordingExecutor } from '../recording/tool-executor.js';
import { type DriftFinding, driftError, driftFinding, excerpt } from './drift.js';
import { diffValues, joinPath } from './request-diff.js';
import { answeredEvents, liveReplayExecutor, servedOutcome, toolReplayMode } from './tool-live.js';
import { previewFailure, previewFindings } from './tool-preview.js';

/** The text a lockdown replay answers an unrecorded call with. */
export const UNRECORDED_TOOL_TEXT =
  'Not run: this tool call is not in the recording, and a lockdown replay runs no unrecorded call.';

/**
 * A tool executor that replays recorded tool calls by call id. Side-effecting tools (`write`,
 * `exec`) are served from the recording and never run twice; a `read` tool that the current
 * policy would run without asking runs live, and a result that differs from the recorded one is
 * a `tool-result` finding at `toolCalls.<id>.result` (the model is still given the recorded
 * result, so the replay stays on its recorded path). `toolModes` in the cassette options
 * overrides this per tool (`live` for a deterministic `exec` tool, `served` for a `read` tool
 * whose answers change over time). Each call is checked against the recorded one (name and
 * input, field by field). A call the recording lacks runs on the inner executor in `replay` mode
 * (and is recorded); in `lockdown` it fails the run (strict) or gets an error result. The inner
 * executor also advertises the tool specs. Get one from `cassette.tools(executor, key)`.
 *
 * When the inner executor can `preview` a call, each served outcome is also checked against what
 * the current tools and permission policy would do, without running or asking anything: a changed
 * permission is a `tool-permission` finding at `toolCalls.<id>.permission`, a call that would now
 * be denied (or run, or find no tool) a `tool-decision` finding at `toolCalls.<id>.status`. A
 * preview of `ask` (only a human's answer decides) or `undecidable` (a policy without `preview`)
 * gives no decision finding. A call whose name or input already drifted is not previewed, and a
 * preview that throws is a `tool-decision` finding with `actual: 'preview-failed'` (the replay
 * cannot vouch for the call; a strict replay fails on it, a lenient one serves the recording).
 */
export class ReplayToolExecutor implements ToolExecutor {
  readonly #inner: ToolExecutor;
  readonly #context: KeyContext;
  readonly #pending = new Map<string, ToolEntry[]>();
  readonly #drifts: DriftFinding[] = [];
  #finished = false;

  /** @internal Use `cassette.tools(executor, key)`. */
  constructor(inner: ToolExecutor, context: KeyContext) {
    this.#inner = inner;
    this.#context = context;
    for (const entry of context.tools) {
      const list = this.#pending.get(entry.call.id) ?? [];
      list.push(entry);
      this.#pending.set(entry.call.id, list);
    }
  }

  /** The recording this executor serves. */
  get key(): CassetteKey {
    return this.#context.key;
  }

  /** Drift found so far, in order. */
  get drifts(): readonly DriftFinding[] {
    return this.#drifts.slice();
  }

  /**
   * Ends the replay: recorded calls never made become an `unconsumed-tool-calls` finding.
   * Returns every finding. Idempotent; `cassette.close()` calls it.
   */
  finish(): readonly DriftFinding[] {
    if (!this.#finished) {
      this.#finished = true;
      const left = [...this.#pending.values()].flat().map((entry) => entry.call.id);
      if (left.length > 0) {
        this.#report(
          driftFinding(
            {
              kind: 'unconsumed-tool-calls',
              key: this.key,
              requestIndex: this.#requestIndex(),
              path: 'toolCalls',
              recorded: left.length,
              actual: 0,
            },
            `${left.length} recorded tool call(s) were never made: ${excerpt(left)}`,
          ),
        );
      }
    }
    return this.drifts;
  }

  specs(): readonly ToolSpec[] {
    return this.#inner.specs();
  }

  /**
   * The inner executor's answer: a replay interrupts where the current tools would, so a call that
   * now needs approval ends the replayed run as it would end a live one. A call the recording holds
   * as `denied` does not wait: the recording went on with that denial (a policy that denied
   * instead of asking, as `mh` did before interrupts), so it is served, and the run stays on it.
   */
  approval(call: ToolUseBlock): Promise<ApprovalRequest | undefined> {
    if (this.#pending.get(call.id)?.[0]?.outcome.status === 'denied')
      return Promise.resolve(undefined);
    return this.#inner.approval?.(call) ?? Promise.resolve(undefined);
  }

  /** The inner executor's preview: what the current tools and policy would do with `call`. */
  preview(call: ToolUseBlock): Promise<ToolCallPreview> {
    return previewToolCall(this.#inner, call);
  }

  /**
   * Answers `calls` one after another, each as the port orders it (its `tool-start`, then its
   * `tool-end` once pulled): served from the recording, run live on the inner executor, or, when
   * unrecorded, run and recorded (`replay`) or refused (`lockdown`). The recording is checked
   * before a call starts, so a strict replay fails before its `tool-start`.
   */
  async *execute(
    calls: readonly ToolUseBlock[],
    context: ToolExecutionContext,
  ): AsyncGenerator<ToolCallEvent, void, undefined> {
    for (const call of calls) {
      if (context.signal.aborted) return;
      const entry = this.#take(call.id);
      if (entry === undefined) {
        yield* this.#unrecorded(call, context);
        continue;
      }
      const same = this.#compare(entry, call);
      const preview = same ? await this.#comparePreview(entry, call) : undefined;
      // A call that already drifted in name or input is served: running it would test another call.
      if (same && toolReplayMode(entry, preview, this.#context.toolModes) === 'live') {
        yield* this.#live(entry, call, context);
        continue;
      }
      yield* answeredEvents(servedOutcome(entry, call), context.signal);
    }
  }

  #requestIndex(): number {
    return this.#context.state.requests - 1;
  }

  #report(finding: DriftFinding): void {
    this.#drifts.push(finding);
    this.#context.report(finding);
  }

  #take(id: string): ToolEntry | undefined {
    const list = this.#pending.get(id);
    const entry = list?.shift();
    if (list !== undefined && list.length === 0) this.#pending.delete(id);
    return entry;
  }

  /** Reports the call's drift from its recording (throws the first when strict); true if none. */
  #compare(entry: ToolEntry, call: ToolUseBlock): boolean {
    const base = joinPath('toolCalls', call.id);
    const differences = [
      ...diffValues(entry.call.name, call.name, `${base}.name`),
      ...diffValues(entry.call.input, this.#context.comparable(call.input), `${base}.input`),
    ];
    const findings = differences.map((difference) =>
      driftFinding({
        kind: 'tool-call',
        key: this.key,
        requestIndex: this.#requestIndex(),
        ...difference,
      }),
    );
    this.#reportAll(findings);
    return findings.length === 0;
  }

  /**
   * Reports where the current executor would treat the call otherwise than recorded; returns the
   * preview when it agrees with the recording (undefined when it does not, when the executor
   * cannot preview, or when the preview failed).
   */
  async #comparePreview(
    entry: ToolEntry,
    call: ToolUseBlock,
  ): Promise<ToolCallPreview | undefined> {
    if (typeof this.#inner.preview !== 'function') return undefined;
    const context = { key: this.key, requestIndex: this.#requestIndex() };
    let preview: ToolCallPreview;
    try {
      preview = await this.#inner.preview(call);
    } catch (error) {
      // The replay cannot vouch for the call: a finding (strict replays fail on it), not a crash.
      this.#reportAll([previewFailure(entry.outcome, call, error, context)]);
      return undefined;
    }
    const findings = previewFindings(entry.outcome, call, preview, context);
    this.#reportAll(findings);
    // A call the current policy would treat otherwise is served: running it would only restate
    // the finding, or do what the recording never did.
    return findings.length === 0 ? preview : undefined;
  }

  /** Runs a recorded call live and reports a result that differs (a strict replay then fails). */
  async *#live(
    entry: ToolEntry,
    call: ToolUseBlock,
    context: ToolExecutionContext,
  ): AsyncGenerator<ToolCallEvent, void, undefined> {
    const findings: DriftFinding[] = [];
    const where = { key: this.key, requestIndex: this.#requestIndex() };
    const live = liveReplayExecutor(this.#inner, entry, where, (finding) => findings.push(finding));
    for await (const event of live.execute([call], context)) {
      this.#reportAll(findings.splice(0));
      yield event;
    }
    this.#reportAll(findings.splice(0));
  }

  #reportAll(findings: readonly DriftFinding[]): void {
    for (const finding of findings) this.#report(finding);
    const first = findings[0];
    if (first !== undefined && this.#context.strict) throw driftError(first);
  }

  async *#unrecorded(
    call: ToolUseBlock,
    context: ToolExecutionContext,
  ): AsyncGenerator<ToolCallEvent, void, undefined> {
    const replayMode = this.#context.mode === 'replay';
    const finding = driftFinding(
      {
        kind: 'unrecorded-tool-call',
        key: this.key,
        requestIndex: this.#requestIndex(),
        path: joinPath('toolCalls', call.id),
        recorded: undefined,
        actual: { name: call.name, input: call.input },
      },
      `tool call ${call.id} (${call.name}) is not in the recording${replayMode ? '; ran it and recorded it' : ''}`,
    );
    this.#report(finding);
    if (replayMode) {
      yield* recordingExecutor(this.#inner, this.#context).execute([call], context);
      return;
    }
    if (this.#context.strict) throw driftError(finding);
    const outcome: ToolOutcome = {
      call,
      result: toolResult(call.id, UNRECORDED_TOOL_TEXT, true),
      status: 'error',
      attempts: 0,
      durationMs: 0,
    };
    yield* answeredEvents(outcome, context.signal);
  }
}
