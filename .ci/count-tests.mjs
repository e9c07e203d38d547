// Sums vitest's per-package "Tests  N passed | M failed" lines from a turbo log into one plain line.
import { readFileSync } from 'node:fs';

const ansi = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');
const log = readFileSync(process.argv[2] ?? 0, 'utf8').replace(ansi, '');
let passed = 0;
let failed = 0;
let skipped = 0;
let packages = 0;
for (const line of log.split('\n')) {
  const match = line.match(/\bTests\s+(.*)\((\d+)\)\s*$/);
  if (!match) continue;
  packages++;
  passed += Number(match[1].match(/(\d+) passed/)?.[1] ?? 0);
  failed += Number(match[1].match(/(\d+) failed/)?.[1] ?? 0);
  skipped += Number(match[1].match(/(\d+) skipped/)?.[1] ?? 0);
}
console.log(`tests in ${packages} packages:`);
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
