#!/usr/bin/env node
// The eval demo, offline: run the suite on harness v1 (the baseline), read the failure
// attribution, then run it on v2 (a renamed tool argument and a shorter system prompt) and let the
// baseline comparison catch the regression. Exits non-zero only if the comparison misses it.
// `--html FILE` also writes the v2 report, compared with v1, as one self-contained HTML page.
import { join } from 'node:path';
import { type DemoArgs, parseDemoArgs } from './demo-args.js';
import { runDemoSuite } from './run-suite.js';

let args: DemoArgs;
try {
  args = parseDemoArgs(process.argv.slice(2));
} catch (error) {
  console.error(`eval-demo: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(2);
}

const { out, html } = args;

function heading(text: string): void {
  console.log(`\n== ${text}\n`);
}

heading('1. Eval: harness v1, 11 cases × 3 repeats (the baseline)');
const baseline = await runDemoSuite('v1');
console.log(baseline.render());
const baselinePath = join(out, 'baseline.json');
await baseline.save(baselinePath);
console.log(`\nsaved ${baselinePath}`);

heading('2. Attribution: why each failing case failed');
for (const item of baseline.summary.byCase.filter((entry) => entry.passed < entry.runs)) {
  const run = baseline.runs.find((entry) => entry.case === item.case && entry.attribution);
  const verdict = run?.attribution;
  if (!verdict) continue;
  console.log(
    `${item.case} (${item.passed}/${item.runs}${item.flaky ? ', flaky' : ''}) → ${verdict.layer}, ${verdict.confidence} confidence: ${verdict.summary}`,
  );
  for (const evidence of verdict.evidence.slice(0, 2)) {
    const where = [
      evidence.spanId && `span ${evidence.spanId}`,
      evidence.messageId && `message ${evidence.messageId}`,
    ]
      .filter(Boolean)
      .join(', ');
    console.log(`    evidence${where ? ` (${where})` : ''}: ${evidence.excerpt}`);
  }
}

heading(
  '3. Eval: harness v2 (lookup_order takes order_id now; the system prompt lost its ANSWER line)',
);
const current = await runDemoSuite('v2');
const { success, completion } = current.summary;
console.log(
  `success ${success.passed}/${success.runs} (was ${baseline.summary.success.passed}/${baseline.summary.success.runs}), completion ${completion.passed}/${completion.runs}`,
);
await current.save(join(out, 'current.json'));

heading('4. Baseline comparison: v2 against v1');
const comparison = current.compare(baseline, { tolerance: 0.34 });
console.log(comparison.render());
const byInterval = current.compare(baseline, { method: 'interval' });
console.log(
  `\ninterval gate: ${byInterval.ok ? 'OK' : 'REGRESSED'} (${byInterval.regressed.length} case(s) significant; suite ${byInterval.pooled[0]?.regressed ? 'dropped significantly' : 'not significant'})`,
);
if (html !== undefined) {
  await current.saveHtml(html, {
    baseline,
    compare: { tolerance: 0.34 },
    title: 'Eval demo: harness v2 against v1',
  });
  console.log(`\nwrote ${html} (open it in a browser; it loads nothing from the network)`);
}
if (comparison.ok) {
  console.error('\nThe comparison did not catch the v2 regression.');
  process.exitCode = 1;
} else {
  console.log(
    `\nCaught: ${comparison.regressed.map((item) => `${item.case} (${item.current.topRule ?? '?'})`).join(', ')}.`,
  );
}
