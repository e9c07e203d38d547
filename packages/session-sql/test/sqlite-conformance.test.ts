import { join } from 'node:path';
import { runSessionStoreConformance } from '@mh/conformance';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../src/index.js';
import { conformanceRuns } from './conformance-runs.js';
import { sqliteCrashWriter } from './crash-writer.js';
import { buildPackage } from './process-harness.js';
import { tempDir } from './turns.js';

let folder: Awaited<ReturnType<typeof tempDir>>;
beforeAll(async () => {
  folder = await tempDir();
});
afterAll(async () => {
  await folder.remove();
});

describe('the SessionStore conformance suite on SQLite', () => {
  it('holds the contract over generated sequences, reopen included', async () => {
    const path = join(folder.dir, 'conformance.db');
    const runs = conformanceRuns({ numRuns: 2000, maxCommands: 10, timeLimitMs: 150_000 });
    const report = await runSessionStoreConformance({
      open: () => openSqliteStore(path),
      reopen: () => openSqliteStore(path),
      ...runs,
    });
    process.stderr.write(`[SQLite conformance] ${JSON.stringify(report)}\n`);
    // 2,000 sequences fit in the limit on a 2-core machine; a far busier one is cut short by
    // the limit instead of timing out, and must still have run a good share of them.
    expect(report.runs).toBeGreaterThanOrEqual(
      report.interrupted ? Math.min(500, runs.numRuns) : runs.numRuns,
    );
  }, 240_000);

  it('holds it across writes killed at their k-th statement in another process', async () => {
    // The crash children run plain Node on the built package.
    buildPackage();
    const path = join(folder.dir, 'crashes.db');
    const crashWriter = sqliteCrashWriter(path, folder.dir);
    const report = await runSessionStoreConformance({
      open: () => openSqliteStore(path),
      reopen: () => openSqliteStore(path),
      crashWriter,
      ...conformanceRuns({ numRuns: 100, maxCommands: 8, timeLimitMs: 90_000 }),
    });
    process.stderr.write(
      `[SQLite conformance with crashes] ${JSON.stringify(crashWriter.outcomes)} by method ${JSON.stringify(crashWriter.byMethod)} ${JSON.stringify(report)}\n`,
    );
    // Most writes die before their COMMIT (nothing may show), some after it (all must show). A
    // busy machine runs fewer sequences in the time limit: the share is what must hold (about
    // 58% quiet and loaded alike), with a floor so a run that hardly crashed still fails.
    const { killedBefore, killedAfter, finished } = crashWriter.outcomes;
    expect(killedBefore).toBeGreaterThanOrEqual(10);
    expect(killedBefore / (killedBefore + killedAfter + finished)).toBeGreaterThan(0.4);
    expect(crashWriter.outcomes.killedAfter + crashWriter.outcomes.finished).toBeGreaterThan(5);
    // The store has commitTurns, so the suite crashes it too: some die inside its transaction.
    expect(crashWriter.byMethod.commitTurns?.killedBefore ?? 0).toBeGreaterThan(0);
  }, 240_000);
});
