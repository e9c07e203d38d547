import type { Confidence, Evidence, Layer } from './types.js';
import type { SessionView } from './view.js';

/** What a rule found when it holds. */
export interface RuleHit {
  /** How sure the rule is. */
  readonly confidence: Confidence;
  /** One line for a human. */
  readonly summary: string;
  /** What supports it. */
  readonly evidence: readonly Evidence[];
  /** What the failure is about, for clustering: a tool, a guard, an error kind. */
  readonly subject?: string;
  /** The error text (or reason) to cluster on; normalised into the signature. */
  readonly detail: string;
}

/**
 * One of SPEC.md's attribution rules. Rules of one layer exclude each other by construction (each
 * says when it is the layer's rule), so a session that shows one fault matches one rule; a
 * session that shows several is attributed by rule order.
 */
export interface AttributionRule {
  /** `<layer>/<name>`. */
  readonly id: string;
  /** Its layer. */
  readonly layer: Layer;
  /** When it holds, in one line (for documentation and reports). */
  readonly when: string;
  /** What it found, or undefined when it does not hold. */
  test(view: SessionView): RuleHit | undefined;
}
