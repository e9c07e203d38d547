import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createDatabase,
  dropDatabase,
  postgresAvailability,
  startPostgres,
  type ThrowawayPostgres,
} from '../../../packages/session-sql/test/support/throwaway-postgres.mjs';
import { runCli } from './run-cli.js';

// Same rule as the store's own PostgreSQL tests: MH_TEST_PG_URL, else a throwaway server when
// the binaries are installed, else skipped with a message — or failed when MH_REQUIRE_POSTGRES=1.
const postgres = postgresAvailability();

describe('mh --db postgres://… with nothing listening', () => {
  it('exits 1 with one line naming the database, not its password', async () => {
    const run = await runCli(['--fake', '--db', 'postgres://mh:hunter2@127.0.0.1:1/mh', 'hi']);
    expect(run.code).toBe(1);
    const lines = run.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('postgres://mh@127.0.0.1:1/mh is unreachable');
    expect(run.stderr).not.toContain('hunter2');
  }, 60_000);
});

if (postgres.kind === 'none') {
  if (postgres.required) {
    it('has PostgreSQL to run against (MH_REQUIRE_POSTGRES=1)', () => {
      throw new Error(postgres.reason);
    });
  } else {
    process.stderr.write(`\n[skipped: mh --db postgres://…] ${postgres.reason}\n`);
  }
}

describe.runIf(postgres.kind !== 'none')('mh --db postgres://…', { timeout: 90_000 }, () => {
  let server: ThrowawayPostgres | undefined;
  let url: string;
  beforeAll(async () => {
    if (postgres.kind === 'local') server = await startPostgres({ bin: postgres.bin });
    const base = postgres.kind === 'url' ? postgres.url : (server?.url ?? '');
    url = await createDatabase(base);
  }, 120_000);
  afterAll(async () => {
    if (server) server.remove();
    else if (url) await dropDatabase(url);
  }, 60_000);

  it('keeps a conversation that another mh lists and continues', async () => {
    // Trust authentication ignores the password: it is there to show it is never printed.
    const db = url.replace('//mh@', '//mh:hunter2@');
    const first = await runCli(['--fake', '--db', db, 'What is 6*7?']);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('42');
    expect(first.stderr).not.toContain('hunter2');
    const listed = await runCli(['--db', db, '--list-sessions']);
    expect(listed.code).toBe(0);
    const rows = listed.stdout.trim().split('\n').slice(1);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toContain('What is 6*7?');
    const id = rows[0]?.split(/\s+/)[0] ?? '';
    const resumed = await runCli(['--fake', '--db', db, '--session', id], '/history\n');
    expect(resumed.code).toBe(0);
    expect(resumed.stderr).toContain(`session ${id}, branch main: 4 message(s)`);
    expect(resumed.stderr).toContain(`resume with --db ${url} --session ${id}`);
    expect(resumed.stderr).not.toContain('hunter2');
  });

  it('refuses an unknown session id with exit code 2', async () => {
    const run = await runCli(['--fake', '--db', url, '--session', 'nope']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('no session nope');
  });
});
