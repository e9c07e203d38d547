// A labelled corpus of failed sessions for attribution: real loop runs (session-fixture) with one
// injected fault each, ten per layer in one file per layer. Each entry names the layer and the
// rule the fault should get.
import { CONTEXT } from './context.js';
import { EVAL } from './eval.js';
import { HARNESS } from './harness.js';
import { INFRA } from './infra.js';
import type { CorpusEntry } from './kit.js';
import { MODEL } from './model.js';
import { PROMPT } from './prompt.js';
import { TOOL } from './tool.js';

export type { CorpusEntry } from './kit.js';

/** Ten failures per layer, 70 in all, in the order of the layers. */
export const CORPUS: readonly CorpusEntry[] = [
  ...INFRA,
  ...EVAL,
  ...HARNESS,
  ...CONTEXT,
  ...TOOL,
  ...PROMPT,
  ...MODEL,
];
