import type { ModelRequest } from '@mh/core';
import type { CassetteKey, RequestEntry } from '../cassette/format.js';
import { type DriftFinding, driftFinding } from './drift.js';

/** A recorded summary call and where it happened: after how many model calls. */
interface RecordedSummary {
  readonly entry: RequestEntry;
  readonly afterModelCalls: number;
}

/** What a replayed request is paired with, and the compaction drift found on the way. */
export interface Pairing {
  /** The recorded exchange of the same kind and ordinal, if any. */
  readonly entry: RequestEntry | undefined;
  /** Compaction findings (`compaction`) found at this request. */
  readonly findings: readonly DriftFinding[];
}

const calls = (count: number): string => `${count} model call(s)`;

/**
 * Pairs a replay's requests with the recording by kind: the n-th model call with the n-th
 * recorded model call and the k-th summary call (`purpose: 'summary'`, a compaction) with the
 * k-th recorded one, so a compaction that happens at another point does not shift every later
 * pair. A compaction is placed by the model calls made before it; one that moved, appeared or
 * vanished is a `compaction` finding at `compactions[k]` naming where it was recorded and where
 * it happens now (or that it did not happen before the model call that now comes without it).
 */
export class RequestPairing {
  readonly #key: CassetteKey;
  readonly #models: readonly RequestEntry[];
  readonly #summaries: readonly RecordedSummary[];
  readonly #missing = new Set<number>();
  #modelCalls = 0;
  #summaryCalls = 0;

  constructor(key: CassetteKey, requests: ReadonlyMap<number, RequestEntry>) {
    this.#key = key;
    const ordered = [...requests.values()].sort((a, b) => a.index - b.index);
    const models: RequestEntry[] = [];
    const summaries: RecordedSummary[] = [];
    for (const entry of ordered) {
      if (isSummary(entry.request)) summaries.push({ entry, afterModelCalls: models.length });
      else models.push(entry);
    }
    this.#models = models;
    this.#summaries = summaries;
  }

  /** Pairs the request that is the replay's `index`-th. */
  next(request: ModelRequest, index: number): Pairing {
    return isSummary(request) ? this.#summary(index) : this.#model(index);
  }

  /** The recorded model call the next model call would be paired with, if any. */
  nextModelCall(): RequestEntry | undefined {
    return this.#models[this.#modelCalls];
  }

  /** Recorded exchanges never paired, but for compactions already reported as gone. */
  unconsumed(): RequestEntry[] {
    const models = this.#models.slice(this.#modelCalls);
    const summaries = this.#summaries
      .map((summary, ordinal) => ({ summary, ordinal }))
      .filter(({ ordinal }) => ordinal >= this.#summaryCalls && !this.#missing.has(ordinal))
      .map(({ summary }) => summary.entry);
    return [...models, ...summaries].sort((a, b) => a.index - b.index);
  }

  #model(index: number): Pairing {
    const ordinal = this.#modelCalls++;
    const findings: DriftFinding[] = [];
    const due = this.#summaries[this.#summaryCalls];
    if (
      due !== undefined &&
      due.afterModelCalls <= ordinal &&
      !this.#missing.has(this.#summaryCalls)
    ) {
      this.#missing.add(this.#summaryCalls);
      findings.push(
        this.#finding(
          this.#summaryCalls,
          index,
          describe(due),
          { notBeforeRequest: index, afterModelCalls: ordinal },
          `did not happen: recorded as request ${due.entry.index}, after ${calls(due.afterModelCalls)}; now model call ${ordinal + 1} (request ${index}) comes without it`,
        ),
      );
    }
    return { entry: this.#models[ordinal], findings };
  }

  #summary(index: number): Pairing {
    const ordinal = this.#summaryCalls++;
    const recorded = this.#summaries[ordinal];
    const now = { request: index, afterModelCalls: this.#modelCalls };
    const here = `now request ${index}, after ${calls(this.#modelCalls)}`;
    if (recorded === undefined) {
      const finding = this.#finding(
        ordinal,
        index,
        undefined,
        now,
        `appeared: it happens now as request ${index}, after ${calls(this.#modelCalls)}; ${this.#summaries.length} compaction(s) were recorded`,
      );
      return { entry: undefined, findings: [finding] };
    }
    const findings =
      recorded.afterModelCalls === this.#modelCalls
        ? []
        : [
            this.#finding(
              ordinal,
              index,
              describe(recorded),
              now,
              `moved: recorded as request ${recorded.entry.index}, after ${calls(recorded.afterModelCalls)}; ${here}`,
            ),
          ];
    return { entry: recorded.entry, findings };
  }

  #finding(
    ordinal: number,
    index: number,
    recorded: unknown,
    actual: unknown,
    what: string,
  ): DriftFinding {
    return driftFinding(
      {
        kind: 'compaction',
        key: this.#key,
        requestIndex: index,
        path: `compactions[${ordinal}]`,
        recorded,
        actual,
      },
      `compaction ${ordinal + 1} ${what}`,
    );
  }
}

function isSummary(request: unknown): boolean {
  return (request as { purpose?: unknown } | null)?.purpose === 'summary';
}

function describe(summary: RecordedSummary): { request: number; afterModelCalls: number } {
  return { request: summary.entry.index, afterModelCalls: summary.afterModelCalls };
}
