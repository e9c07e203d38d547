// Attribution accuracy on the labelled fault corpus (70 faults injected into real agent runs,
// ten per layer). Runs against the built app (`pnpm --filter @mh/eval-demo build` first).
import { measureAttribution, renderAccuracy } from '../dist/fault-corpus.js';

const started = performance.now();
const result = await measureAttribution();
console.log(renderAccuracy(result));
console.log(`(${result.total} runs in ${((performance.now() - started) / 1000).toFixed(1)} s)`);
