// Attribution accuracy on the labelled fault corpus (faults injected into real agent runs: ten per
// layer, plus the hard ones of src/faults/corpus.ts), overall and per layer. Runs against the
// built app (`npx tsc -b apps/eval-demo` first).
import { measureAttribution, renderAccuracy } from '../dist/faults/corpus.js';

const started = performance.now();
const result = await measureAttribution();
console.log(renderAccuracy(result));
console.log(`(${result.total} runs in ${((performance.now() - started) / 1000).toFixed(1)} s)`);
