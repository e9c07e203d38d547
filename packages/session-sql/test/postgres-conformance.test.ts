import { runSessionStoreConformance } from '@mh/conformance';
import { expect, it } from 'vitest';
import { openPostgresStore } from '../src/postgres/index.js';
import { conformanceRuns } from './conformance-runs.js';
import { describePostgres } from './postgres-target.js';

describePostgres('the SessionStore conformance suite on PostgreSQL', (postgres) => {
  it('holds the contract over generated sequences, reopen included', async () => {
    // One schema for the whole run: every sequence works in sessions of its own.
    const open = () =>
      openPostgresStore({
        connectionString: postgres().databaseUrl,
        schema: 'conformance',
        poolSize: 2,
      });
    const runs = conformanceRuns({ numRuns: 2000, maxCommands: 4, timeLimitMs: 150_000 });
    const report = await runSessionStoreConformance({
      open,
      reopen: open,
      ...runs,
      // Four generators at once: each waits on the server's fsync most of the time.
      concurrency: 4,
    });
    process.stderr.write(`[PostgreSQL conformance] ${JSON.stringify(report)}\n`);
    // 2,000 sequences fit in the limit on a 2-core machine; a far busier one is cut short by
    // the limit instead of timing out, and must still have run a good share of them.
    expect(report.runs).toBeGreaterThanOrEqual(
      report.interrupted ? Math.min(500, runs.numRuns) : runs.numRuns,
    );
  }, 240_000);
});
