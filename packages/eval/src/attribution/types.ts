import type { AgentEvent, RunResult, SpanRecord } from '@mh/core';
import type { CheckResult } from '../checks/check.js';

/** The layers a failure is attributed to, in the order SPEC.md's rules test them. */
export const LAYERS = ['infra', 'eval', 'harness', 'context', 'tool', 'prompt', 'model'] as const;
/** A layer a failure is attributed to. */
export type Layer = (typeof LAYERS)[number];

/** How sure an attribution is. Attribution is triage, not proof. */
export const CONFIDENCES = ['high', 'medium', 'low'] as const;
/** How sure an attribution is. */
export type Confidence = (typeof CONFIDENCES)[number];

/** One piece of evidence: where to look (a span, a message) and what it says. */
export interface Evidence {
  /** The span that shows it (an `mh.model`, `mh.tool`, `mh.run` or `mh.compaction` span). */
  readonly spanId?: string;
  /** The message that holds it (e.g. the compacted message that held a fact). */
  readonly messageId?: string;
  /** The attribute or field it was read from, e.g. `error.type` or `mh.guard`. */
  readonly attribute?: string;
  /** What it says, at most 200 characters, secrets masked. */
  readonly excerpt: string;
}

/** A failure's attribution: the first of SPEC.md's ordered rules that holds. */
export interface Attribution {
  /** The layer. */
  readonly layer: Layer;
  /** The rule that fired, `<layer>/<name>`, e.g. `tool/runtime-error`. */
  readonly rule: string;
  /** How sure. */
  readonly confidence: Confidence;
  /** One line for a human. */
  readonly summary: string;
  /** What supports it. */
  readonly evidence: readonly Evidence[];
  /**
   * What failures with the same cause share: rule, subject (a tool, a guard, an error kind) and
   * the error text with digits, paths and ids stripped. Clusters group by it.
   */
  readonly signature: string;
}

/** How the check of a session went. */
export type SessionCheck =
  | { readonly status: 'passed' | 'failed'; readonly result: CheckResult }
  /** The check itself threw (or returned something that is not a verdict). */
  | { readonly status: 'threw'; readonly error: unknown }
  /** The check did not run: the session produced no answer (the agent or its factory threw). */
  | { readonly status: 'skipped' };

/**
 * Everything attribution reads about one failed session (one case, one repeat). The runner fills
 * it; tests build it by hand.
 */
export interface AttributionInput {
  /** The session's runs, in order (one per prompt that produced a result). */
  readonly results: readonly RunResult[];
  /**
   * The session's events. Only `compaction` (its `originals` hold compacted-away messages) and
   * `tool-execution-end` (each call's status) are read; others may be left out.
   */
  readonly events?: readonly AgentEvent[];
  /** The session's finished spans (a fresh tracer per session). */
  readonly spans?: readonly SpanRecord[];
  /** What the agent threw instead of ending a run (`stream()` itself failed). */
  readonly error?: unknown;
  /** What the case's agent factory threw (no run happened). */
  readonly factoryError?: unknown;
  /** True when the runner's `timeoutMs` stopped the session. */
  readonly timedOut?: boolean;
  /** How the check went. */
  readonly check: SessionCheck;
  /** The check's name (evidence of an eval failure). */
  readonly checkName?: string;
  /** Facts the check declares (`contains` phrases, `pathIs` paths). */
  readonly facts?: readonly string[];
  /** The case's tags (`format` makes a failed check a prompt problem). */
  readonly tags?: readonly string[];
}
