// Cold start of the built `mh`, as whole processes (run against the BUILT CLI: the bench task
// depends on build). Each command is started BENCH_RUNS times (default 15, at least 10) after one
// warm-up run, in turn with `node -e 0` (the floor: Node starting and exiting with nothing to do)
// so a machine that speeds up or slows down during the run moves both alike. Wall time is taken
// from just before the spawn to the child's exit; min / median / max are printed, and our / floor
// as the ratio of medians and as the median of the pair-by-pair ratios.
// Issue 16's target: the one-shot fake answer in at most 0.30 s.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const RUNS = Math.max(10, Number(process.env.BENCH_RUNS ?? 15));
const MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));

const FLOOR = { name: 'node -e 0 (floor)', args: ['-e', '0'] };
const COMMANDS = [
  { name: 'mh --fake "What is 6*7?"', args: [MAIN, '--fake', 'What is 6*7?'], target: 0.3 },
  { name: 'mh --help', args: [MAIN, '--help'] },
  { name: 'mh --version', args: [MAIN, '--version'] },
];

/** Seconds from spawn to exit of `node ...args`; a non-zero exit is a broken bench. */
function timeOnce(args) {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const child = spawn(process.execPath, args, { stdio: 'ignore' });
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      if (code === 0) resolve(seconds);
      else reject(new Error(`node ${args.join(' ')} exited ${code ?? signal}`));
    });
  });
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

const spread = (values) =>
  `${Math.min(...values).toFixed(3)} / ${median(values).toFixed(3)} / ${Math.max(...values).toFixed(3)}`;

console.log(
  `cold start, whole process, ${RUNS} runs each after 1 warm-up (wall s, min / median / max)`,
);
for (const command of COMMANDS) {
  await timeOnce(command.args);
  await timeOnce(FLOOR.args);
  const ours = [];
  const floor = [];
  const ratios = [];
  for (let run = 0; run < RUNS; run++) {
    ours.push(await timeOnce(command.args));
    floor.push(await timeOnce(FLOOR.args));
    ratios.push(ours.at(-1) / floor.at(-1));
  }
  const target =
    command.target === undefined
      ? ''
      : `  target ≤ ${command.target.toFixed(2)} s: ${median(ours) <= command.target ? 'met' : 'NOT met'}`;
  console.log(`  ${command.name.padEnd(28)} ${spread(ours)}${target}`);
  console.log(`  ${FLOOR.name.padEnd(28)} ${spread(floor)}`);
  console.log(
    `  ${'our / floor'.padEnd(28)} ${(median(ours) / median(floor)).toFixed(2)}× (pairwise median ${median(ratios).toFixed(2)}×, min ${Math.min(...ratios).toFixed(2)}×, max ${Math.max(...ratios).toFixed(2)}×)`,
  );
}
