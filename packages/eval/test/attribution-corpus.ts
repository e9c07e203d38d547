// A labelled corpus of failed sessions for attribution: real loop runs (session-fixture) with one
// injected fault each, ten per layer. Each entry names the layer and the rule the fault should get.
import { EVAL, HARNESS, INFRA } from './attribution-corpus-early.js';
import type { CorpusEntry } from './attribution-corpus-kit.js';
import { CONTEXT, MODEL, PROMPT, TOOL } from './attribution-corpus-late.js';

export type { CorpusEntry } from './attribution-corpus-kit.js';

/** Ten failures per layer, 70 in all. */
export const CORPUS: readonly CorpusEntry[] = [
  ...INFRA,
  ...EVAL,
  ...HARNESS,
  ...CONTEXT,
  ...TOOL,
  ...PROMPT,
  ...MODEL,
];
