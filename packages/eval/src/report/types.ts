import type { TokenCounts } from '@mh/core';
import type { Attribution } from '../attribution/types.js';
import type { CheckFailure } from '../checks/check.js';
import type { RunTrace } from './trace.js';

/** Metrics of one session (every run of a case's prompts), derived from its spans. */
export interface SessionMetrics {
  /** Runs (prompts) that produced a result. */
  readonly runs: number;
  /** Model calls (turns) over all runs. */
  readonly turns: number;
  /** Tool calls over all runs. */
  readonly toolCalls: number;
  /** Tool calls that failed. */
  readonly toolErrors: number;
  /** Compactions that changed the history. */
  readonly compactions: number;
  /** Tokens by kind over all runs. */
  readonly tokens: TokenCounts;
  /** Cache reads over all prompt tokens. */
  readonly cacheHitRatio: number;
  /** Cost of all runs, USD. */
  readonly costUsd: number;
}

/** How a session ended, beyond the loop's own statuses. */
export const SESSION_STATUSES = [
  'completed',
  'guard',
  'cancelled',
  'error',
  'interrupted',
  'threw',
  'timeout',
  'factory-error',
] as const;
/**
 * How a session ended: a run status of its last run (`interrupted`: it waits for a person's
 * decision, which an eval never gives), or `threw` (the agent threw instead of
 * ending a run), `timeout` (the runner's `timeoutMs`), `factory-error` (no agent was built).
 */
export type SessionStatus = (typeof SESSION_STATUSES)[number];

/** One session of one case (one repeat), as the report keeps it (plain JSON). */
export interface CaseRun {
  /** The case's name. */
  readonly case: string;
  /** The repeat index, 0-based. */
  readonly repeat: number;
  /** The case's tags. */
  readonly tags: readonly string[];
  /** How the session ended. */
  readonly status: SessionStatus;
  /** True when every prompt's run completed normally. */
  readonly completed: boolean;
  /** True when it completed and the check passed. */
  readonly passed: boolean;
  /** The final answer (cut to 2,000 characters). */
  readonly answer: string;
  /** The check's verdict, when it ran and returned one. */
  readonly check?: {
    readonly passed: boolean;
    readonly reason: string;
    readonly failures: readonly CheckFailure[];
  };
  /** What the check threw, when it threw. */
  readonly checkError?: string;
  /** The failure that ended the session (class and message), when one did. */
  readonly error?: { readonly name: string; readonly message: string };
  /** The guard that stopped it, when one did. */
  readonly guard?: string;
  /** Wall time of the session (all prompts), milliseconds. */
  readonly durationMs: number;
  /** Its metrics. */
  readonly metrics: SessionMetrics;
  /** Why it failed, when it did. */
  readonly attribution?: Attribution;
  /** What a failed session did (span tree and conversation), for the HTML report. */
  readonly trace?: RunTrace;
}

/** Facts about a report's run, kept with it and shown by comparisons. */
export interface ReportMeta {
  /** When the run started, ISO 8601. */
  readonly startedAt: string;
  /** Repeats per case. */
  readonly repeats: number;
  /** Sessions run at once. */
  readonly concurrency: number;
  /** Wall time of the whole run, milliseconds. */
  readonly durationMs: number;
  /** Free-form labels (model id, harness git sha, mode, flags). */
  readonly labels: Readonly<Record<string, string>>;
}

/** A report as saved: version 1. */
export interface ReportData {
  readonly format: 'mh-eval-report';
  readonly version: 1;
  readonly meta: ReportMeta;
  readonly runs: readonly CaseRun[];
}
