#!/usr/bin/env node
// The CI eval gate (`pnpm turbo run eval`): replays the committed cassette in lockdown mode through
// the current code and compares with the committed baseline. Exit 0: no regression; 1: a case
// regressed or the replay drifted from the recording; 2: no verdict (cassette or baseline
// missing, infrastructure failures).
import { assertGateMode, parseGateArgs } from './gate-args.js';
import { GATE_EXIT, runGate } from './gate-run.js';

let code: number;
try {
  assertGateMode(process.env);
  const args = parseGateArgs(process.argv.slice(2));
  code = await runGate({
    ...args,
    out: (line) => console.log(line),
    err: (line) => console.error(line),
  });
} catch (error) {
  console.error(`eval gate: ${(error as Error).message}`);
  code = GATE_EXIT.noVerdict;
}
process.exitCode = code;
