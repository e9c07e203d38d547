// Wall time of the whole dry run (48 sessions: 16 tasks x 3 repeats, default switches), as a user
// runs it: the built CLI in a child process. Prints every run and the median. Run `tsc -b` first
// (`pnpm --filter evals bench` does).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const runs = Number(process.env.MH_BENCH_RUNS ?? 5);
const cli = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'run-real.js');
const folder = mkdtempSync(join(tmpdir(), 'mh-evals-bench-'));
const times = [];
try {
  for (let index = 0; index < runs; index++) {
    const started = performance.now();
    const result = spawnSync(
      process.execPath,
      [cli, '--dry-run', '--out', join(folder, String(index))],
      {
        encoding: 'utf8',
      },
    );
    const ms = performance.now() - started;
    if (result.status !== 0) throw new Error(`dry run failed:\n${result.stderr}`);
    times.push(ms);
    console.log(`run ${index + 1}: ${(ms / 1000).toFixed(2)} s  ${result.stdout.split('\n')[0]}`);
  }
} finally {
  rmSync(folder, { recursive: true, force: true });
}
const sorted = [...times].sort((a, b) => a - b);
const median = sorted[Math.floor(sorted.length / 2)];
console.log(
  `dry run, 48 sessions: median ${(median / 1000).toFixed(2)} s over ${runs} runs ` +
    `(min ${(sorted[0] / 1000).toFixed(2)} s, max ${(sorted.at(-1) / 1000).toFixed(2)} s)`,
);
