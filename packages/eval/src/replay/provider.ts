import {
  type ModelRequest,
  type Provider,
  ReplayDriftError,
  type RunResult,
  type StreamEvent,
  type StreamOptions,
} from '@mh/core';
import type { KeyContext } from '../cassette/context.js';
import type { CassetteKey } from '../cassette/format.js';
import { recordStream } from '../recording/stream.js';
import { type DriftFinding, driftError, driftFinding } from './drift.js';
import { RequestPairing } from './pairing.js';
import { diffRequests } from './request-diff.js';
import { playEntry } from './stream.js';

/**
 * A provider that serves a recording: the n-th model call of a run gets the n-th recorded model
 * call's answer and the k-th summary call (a compaction, `purpose: 'summary'`) the k-th recorded
 * summary's, after the request is diffed field by field against the recorded one. A compaction
 * that moved, appeared or vanished is a `compaction` finding (`RequestPairing`), not a diff of a
 * summary prompt against a conversation. It makes no network call.
 * In strict mode the first drift fails the call with `ReplayDriftError`; otherwise the recorded
 * answer is served and the drift collected (`drifts`). A request beyond the recording fails, or,
 * in `replay` mode with an inner provider, is answered by it and recorded. Get one per
 * (case, repeat) from `cassette.provider(inner, key)` in `replay` or `lockdown` mode.
 */
export class ReplayProvider implements Provider {
  /** The inner provider's name, else the cassette's `meta.provider`, else `replay`. */
  readonly name: string;
  /**
   * Whether typed output took the native form in the recording (a recorded request carries
   * `output`), or the final tool (`toolChoice`); else the inner provider's. A replay thus asks in
   * the recorded form, and a changed schema shows as drift of `output` or of the final tool.
   */
  readonly nativeOutput: boolean | undefined;
  readonly #inner: Provider | undefined;
  readonly #context: KeyContext;
  readonly #drifts: DriftFinding[] = [];
  readonly #pairing: RequestPairing;
  #served = 0;
  /** The index a request beyond the recording is appended under. */
  #appendIndex: number;
  #finished = false;

  /** @internal Use `cassette.provider(inner, key)`. */
  constructor(inner: Provider | undefined, context: KeyContext, name: string) {
    this.name = name;
    this.#inner = inner;
    this.#context = context;
    this.nativeOutput = recordedOutputForm(context) ?? inner?.nativeOutput;
    this.#pairing = new RequestPairing(context.key, context.requests);
    this.#appendIndex = Math.max(-1, ...context.requests.keys()) + 1;
  }

  /** The recording this provider serves. */
  get key(): CassetteKey {
    return this.#context.key;
  }

  /** Requests received so far. */
  get served(): number {
    return this.#served;
  }

  /** Requests the recording holds for this key. */
  get recorded(): number {
    return this.#context.requests.size;
  }

  /** Drift found so far, in order. */
  get drifts(): readonly DriftFinding[] {
    return this.#drifts.slice();
  }

  /**
   * Ends the replay: recorded requests never asked for (a guard stopped the run earlier, a
   * compaction saved a call) become an `unconsumed-requests` finding. Returns every finding.
   * Idempotent; `cassette.close()` calls it.
   */
  finish(): readonly DriftFinding[] {
    this.#finish(undefined);
    return this.drifts;
  }

  /**
   * A run's result as a strict replay must report it: a run that stopped (a guard, a failure that
   * is not already drift) where the recording went on with the same run (its next model call
   * answers this run's tool calls) ends instead with the `ReplayDriftError` of its
   * `unconsumed-requests` finding, reported now rather than at `cassette.close()`. Any other
   * result (a lenient replay, a run that ended as recorded, one that stopped for a human) is
   * returned as is. Call it with every run's result; `cassette.settle(key, result)` does.
   */
  settle(result: RunResult): RunResult {
    if (!this.#context.strict || this.#finished) return result;
    const stopped =
      result.status === 'guard' ||
      (result.status === 'error' && !ReplayDriftError.isInstance(result.error));
    const next = this.#pairing.nextModelCall();
    if (!stopped || next === undefined || !continuesRun(next.request)) return result;
    const why = result.status === 'guard' ? `guard ${result.guard}` : 'an error';
    const finding = this.#finish(`the run stopped (${why})`);
    if (finding === undefined) return result;
    return { ...result, status: 'error', guard: undefined, error: driftError(finding) };
  }

  /** Reports the recorded requests never asked for, once; returns that finding. */
  #finish(stop: string | undefined): DriftFinding | undefined {
    let reported: DriftFinding | undefined;
    if (!this.#finished) {
      this.#finished = true;
      const left = this.#pairing.unconsumed().map((entry) => entry.index);
      if (left.length > 0) {
        const what =
          stop === undefined
            ? `${left.length} recorded request(s) were never asked for`
            : `${stop} with ${left.length} recorded request(s) never asked for, the next one going on with this run`;
        reported = driftFinding(
          {
            kind: 'unconsumed-requests',
            key: this.key,
            requestIndex: Math.min(...left),
            path: 'requests',
            recorded: this.recorded,
            actual: this.#served,
          },
          `${what} (recorded ${this.recorded}, asked ${this.#served})`,
        );
        this.#report(reported);
      }
    }
    return reported;
  }

  stream(request: ModelRequest, options: StreamOptions = {}): AsyncIterable<StreamEvent> {
    const index = this.#served++;
    this.#context.state.requests = this.#served;
    return this.#serve(index, request, options);
  }

  #report(finding: DriftFinding): void {
    this.#drifts.push(finding);
    this.#context.report(finding);
  }

  async *#serve(
    index: number,
    request: ModelRequest,
    options: StreamOptions,
  ): AsyncGenerator<StreamEvent, void, undefined> {
    const context = this.#context;
    const { entry, findings: compaction } = this.#pairing.next(request, index);
    for (const finding of compaction) this.#report(finding);
    const moved = compaction[0];
    if (moved !== undefined && context.strict) throw driftError(moved);
    if (entry === undefined) {
      const inner = context.mode === 'replay' ? this.#inner : undefined;
      // A compaction that appeared has no recorded answer: its finding says so already.
      if (moved !== undefined && !inner) throw driftError(moved);
      const why = inner
        ? `; served by ${inner.name} and recorded`
        : context.mode === 'lockdown'
          ? '; lockdown serves recorded requests only'
          : '; no provider was given to fall through to';
      const finding = driftFinding(
        {
          kind: 'unrecorded-request',
          key: this.key,
          requestIndex: index,
          path: 'requests',
          recorded: this.recorded,
          actual: index + 1,
        },
        `request ${index} is not in the recording (${this.recorded} recorded)${why}`,
      );
      if (moved === undefined) this.#report(finding);
      if (!inner) throw driftError(finding);
      yield* recordStream(
        () => inner.stream(request, options),
        request,
        this.#appendIndex++,
        context,
        options.signal,
      );
      return;
    }
    const differences = diffRequests(entry.request, context.comparable(request));
    const findings = differences.map((difference) =>
      driftFinding({ kind: 'request-field', key: this.key, requestIndex: index, ...difference }),
    );
    for (const finding of findings) this.#report(finding);
    const first = findings[0];
    if (first !== undefined && context.strict) throw driftError(first);
    const end = yield* playEntry(entry, context, options.signal);
    if (end === 'as-recorded') return;
    // The recorded run was cancelled or timed out here and this one was not: there is no
    // recorded answer to serve, in any mode.
    const cutOff = driftFinding(
      {
        kind: 'abandoned-request',
        key: this.key,
        requestIndex: index,
        path: 'outcome',
        recorded: 'abandoned',
        actual: 'not cancelled',
      },
      `the recording was cut off here after ${entry.durationMs} ms (its run was cancelled or timed out) and the replay was not cancelled at that point; there is no recorded answer to serve`,
    );
    this.#report(cutOff);
    throw driftError(cutOff);
  }
}

/** Whether a recorded request goes on with the previous answer's run: it only answers tool calls. */
function continuesRun(request: ModelRequest): boolean {
  const last = request.messages.at(-1);
  return (
    last?.role === 'user' &&
    last.content.length > 0 &&
    last.content.every((block) => block.type === 'tool_result')
  );
}

/** True when a recorded request asked for native typed output, false for a final tool. */
function recordedOutputForm(context: KeyContext): boolean | undefined {
  for (const entry of context.requests.values()) {
    if (entry.request.output !== undefined) return true;
    if (entry.request.toolChoice === 'required') return false;
  }
  return undefined;
}
