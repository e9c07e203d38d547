import type { ModelRequest, Provider, StreamEvent, StreamOptions } from '@mh/core';
import type { KeyContext } from './cassette-context.js';
import type { CassetteKey } from './cassette-format.js';
import { recordStream } from './recording-stream.js';
import { type DriftFinding, driftError, driftFinding } from './replay-drift.js';
import { RequestPairing } from './replay-pairing.js';
import { playEntry } from './replay-stream.js';
import { diffRequests } from './request-diff.js';

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
    if (!this.#finished) {
      this.#finished = true;
      const left = this.#pairing.unconsumed().map((entry) => entry.index);
      if (left.length > 0) {
        this.#report(
          driftFinding(
            {
              kind: 'unconsumed-requests',
              key: this.key,
              requestIndex: Math.min(...left),
              path: 'requests',
              recorded: this.recorded,
              actual: this.#served,
            },
            `${left.length} recorded request(s) were never asked for (recorded ${this.recorded}, asked ${this.#served})`,
          ),
        );
      }
    }
    return this.drifts;
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
