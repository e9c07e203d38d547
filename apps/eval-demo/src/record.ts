#!/usr/bin/env node
// Records the demo suite into the committed cassette (the offline demo model stands in for a real
// one), then replays it in lockdown mode and writes that report as the committed baseline. Run it
// after a deliberate change of the harness or the cases: `pnpm --filter @mh/eval-demo record`.
import { openCassette } from '@mh/eval';
import { DEMO_CASES } from './demo-cases.js';
import { parseGateArgs } from './gate-args.js';
import { runCassetteSuite } from './replay-suite.js';

const args = parseGateArgs(process.argv.slice(2));
const recording = await openCassette(args.cassette, {
  mode: 'record',
  overwrite: true,
  meta: {
    provider: 'demo',
    model: 'demo-model',
    harness: 'v1',
    recordedBy: 'apps/eval-demo/src/record.ts',
  },
});
const recorded = await runCassetteSuite(recording, DEMO_CASES, { repeats: 3 });
await recording.close();
const replay = await openCassette(args.cassette, { mode: 'lockdown' });
const replayed = await runCassetteSuite(replay, DEMO_CASES, { repeats: 3, progress: false });
const { drifts } = await replay.close();
const differs = recorded.runs.filter((run, index) => run.passed !== replayed.runs[index]?.passed);
if (drifts.length > 0 || differs.length > 0) {
  console.error(
    `the replay does not reproduce the recording: ${drifts.length} drift(s), ${differs.map((run) => run.case).join(', ')} changed`,
  );
  process.exitCode = 1;
} else {
  await replayed.save(args.baseline);
  console.log(replayed.render());
  console.log(`\nrecorded ${args.cassette} and wrote ${args.baseline}`);
}
