import { usageAttributes } from '../loop/model-call.js';
import type { IdSource, Message } from '../messages/message.js';
import { addUsage, type Usage, ZERO_USAGE } from '../messages/usage.js';
import type { Clock } from '../ports/clock.js';
import type { Provider } from '../ports/provider.js';
import { SPAN_NAMES, type Span, type Tracer } from '../ports/tracer.js';
import type { PricingTable } from '../pricing/prices.js';
import { recordFailure } from '../tracing/span-failure.js';
import { SPAN_ATTRIBUTES as A } from '../tracing/vocabulary.js';
import { type CompactionContext, type CompactionOutcome, Compactor } from './compactor.js';
import { ContextMeter } from './context-meter.js';
import { type CompactionOptions, type ResolvedCompaction, resolveCompaction } from './options.js';
import { providerSummarizer } from './provider-summarizer.js';
import type { CompactionEvent, CompactionRecord } from './record.js';
import { SUMMARY_INSTRUCTIONS } from './summary-prompt.js';

/** A run's compaction machinery: the compactor and the meter it measures with. */
export interface RunCompaction {
  readonly compactor: Compactor;
  readonly meter: ContextMeter;
}

/** Builds the compaction of a run from its options (validated; field names `compaction.*`). */
export function setupCompaction(
  options: CompactionOptions,
  run: {
    readonly provider: Provider;
    readonly model: string;
    readonly pricing: PricingTable;
    readonly clock: Clock;
    /** Ids of summary messages and records (default: `newMessageId`). */
    readonly newId?: IdSource;
  },
  resolved?: ResolvedCompaction,
): RunCompaction {
  // Resolved once with the loop's settings (resolveLoopOptions), or now.
  const settings = resolved ?? resolveCompaction(options, run.model);
  const meter = options.meter ?? new ContextMeter();
  const compactor = new Compactor(settings, {
    meter,
    summarizer: options.summarizer ?? providerSummarizer(run.provider, run.model),
    instructions: options.instructions ?? SUMMARY_INSTRUCTIONS,
    pricing: run.pricing,
    clock: run.clock,
    ...(run.newId === undefined ? {} : { newId: run.newId }),
  });
  return { compactor, meter };
}

/** What one compaction step did, for the loop to apply. */
export interface CompactionStepResult extends CompactionOutcome {
  /** Tokens and cost of its summary calls (kept or discarded: both were paid for). */
  readonly usage: Usage;
  readonly costUsd: number;
  readonly records: readonly CompactionRecord[];
}

/**
 * Runs the compactor before a model call, inside an `mh.compaction` span when it acts. The span
 * carries the last record's stage, every record's reason, and the summary calls' usage and cost
 * (no `mh.model` span sits below it, so metrics bill it from here).
 */
export async function compactionStep(
  compaction: RunCompaction,
  history: readonly Message[],
  context: CompactionContext,
  tracing: { readonly tracer: Tracer; readonly parent: Span },
): Promise<CompactionStepResult> {
  const { compactor } = compaction;
  if (!compactor.due(history, context))
    return { events: [], usage: ZERO_USAGE, costUsd: 0, records: [] };
  const span = tracing.tracer.startSpan(SPAN_NAMES.compaction, { parent: tracing.parent });
  try {
    const outcome = await compactor.compact(history, context);
    const records = outcome.events.map((event: CompactionEvent) => event.record);
    let usage: Usage = ZERO_USAGE;
    let costUsd = 0;
    for (const record of records) {
      usage = addUsage(usage, record.usage);
      costUsd += record.costUsd;
    }
    const last = records.at(-1);
    if (last) {
      span.setAttributes({
        ...usageAttributes(usage),
        [A.costUsd]: costUsd,
        [A.compactionStage]: last.stage,
        [A.compactionReason]: records.map((record) => record.reason).join('; then '),
        [A.compactionTokensBefore]: records[0]?.tokensBefore,
        [A.compactionTokensAfter]: last.tokensAfter,
        [A.compactionFoldedMessages]: records.reduce(
          (sum, record) => sum + record.foldedMessageIds.length,
          0,
        ),
        [A.compactionTrimmedMessages]: records.reduce(
          (sum, record) => sum + record.trimmedMessageIds.length,
          0,
        ),
        [A.compactionIds]: records.map((record) => record.id),
      });
    }
    return { ...outcome, usage, costUsd, records };
  } catch (error) {
    recordFailure(span, error);
    throw error;
  } finally {
    span.end();
  }
}
