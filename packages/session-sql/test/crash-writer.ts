import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CrashWriter } from '@mh/conformance';
import { startChild } from './process-harness.js';

/** How the crashed writes ended: killed before their COMMIT, killed after it, or finished. */
interface Outcomes {
  killedBefore: number;
  killedAfter: number;
  finished: number;
}

/**
 * The conformance suite's crash hook for a SQLite file: each write runs in a child process
 * (children/crash-write.mjs) killed right after its k-th statement. The write landed when the
 * child finished, or when COMMIT was among the statements it ran before the kill.
 */
export function sqliteCrashWriter(
  path: string,
  folder: string,
): CrashWriter & {
  readonly outcomes: Outcomes;
  /** The same counts for each write method. */
  readonly byMethod: Record<string, Outcomes>;
} {
  let runs = 0;
  const outcomes: Outcomes = { killedBefore: 0, killedAfter: 0, finished: 0 };
  const byMethod: Record<string, Outcomes> = {};
  const writer = async (...[write, k]: Parameters<CrashWriter>) => {
    runs += 1;
    const writeFile = join(folder, `crash-${runs}.json`);
    const statementLog = join(folder, `crash-${runs}.log`);
    writeFileSync(writeFile, JSON.stringify(write));
    const child = startChild('crash-write.mjs', [path, writeFile, String(k), statementLog]);
    child.process.stdin?.end();
    const exit = await child.exited;
    const statements = existsSync(statementLog)
      ? readFileSync(statementLog, 'utf8')
          .split('\n')
          .filter((line) => line.length > 0)
          .map((line) => String(JSON.parse(line)).trim().toLowerCase())
      : [];
    const committed = statements.includes('commit');
    const outcome = exit === 0 ? 'finished' : committed ? 'killedAfter' : 'killedBefore';
    outcomes[outcome] += 1;
    const counts = byMethod[write.method] ?? { killedBefore: 0, killedAfter: 0, finished: 0 };
    counts[outcome] += 1;
    byMethod[write.method] = counts;
    return { landed: exit === 0 || committed };
  };
  return Object.assign(writer, { outcomes, byMethod });
}
