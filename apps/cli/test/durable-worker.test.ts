import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createDatabase,
  dropDatabase,
  postgresAvailability,
  startPostgres,
  type ThrowawayPostgres,
} from '../../../packages/session-sql/test/support/throwaway-postgres.mjs';
import { runCli, startCli } from './run-cli.js';

// A walk through durable runs as a user finds them: `mh worker` in one terminal, `mh --enqueue`
// in another, on one PostgreSQL database. Same PostgreSQL rule as postgres-sessions.test.ts.
const postgres = postgresAvailability();

describe('mh worker and --enqueue: usage errors', () => {
  it.each([
    [['worker', '--fake'], '--db postgres://'],
    [['worker', '--fake', '--db', 'mh.db'], '--db postgres://'],
    [['worker', '--db', 'postgres://x@127.0.0.1:1/x'], 'needs a model provider'],
    [['worker', '--fake', '--db', 'postgres://x@127.0.0.1:1/x', 'hi'], 'takes no prompt'],
    [['--db', 'postgres://x@127.0.0.1:1/x', '--enqueue', ' '], '--enqueue expects a prompt'],
    [['--db', 'postgres://x@127.0.0.1:1/x', '--enqueue', 'hi', 'there'], 'exclude each other'],
    [['--fake', '--queue', 'q', 'hi'], '--queue applies to mh worker and --enqueue only'],
    [
      ['--db', 'postgres://x@127.0.0.1:1/x', '--enqueue', 'hi', '--concurrency', '2'],
      'worker only',
    ],
    [['--fake', '--concurrency', '2', 'hi'], '--concurrency applies to mh worker only'],
    [
      ['worker', '--fake', '--db', 'postgres://x@127.0.0.1:1/x', '--enqueue', 'hi'],
      'exclude each other',
    ],
    [
      ['--db', 'postgres://x@127.0.0.1:1/x', '--enqueue', 'hi', '--grant', 'write'],
      'give --grant to mh worker',
    ],
    [['--db', 'postgres://x@127.0.0.1:1/x', '--workflow', 'w', '--session', 's'], 'drop --session'],
    [
      ['worker', '--fake', '--db', 'postgres://x@127.0.0.1:1/x', '--timeout-ms', '5'],
      'no --timeout-ms',
    ],
  ])('mh %j exits 2 naming the mistake', async (args, message) => {
    const run = await runCli(args);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(message);
  });
});

if (postgres.kind === 'none') {
  if (postgres.required) {
    it('has PostgreSQL to run against (MH_REQUIRE_POSTGRES=1)', () => {
      throw new Error(postgres.reason);
    });
  } else {
    process.stderr.write(`\n[skipped: mh worker] ${postgres.reason}\n`);
  }
}

describe.runIf(postgres.kind !== 'none')('mh worker and mh --enqueue', { timeout: 120_000 }, () => {
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

  it('answers an enqueued prompt on a worker, continues its session, and follows a run by id', async () => {
    const worker = startCli(['worker', '--fake', '--db', url, '--concurrency', '2']);
    try {
      const deadline = Date.now() + 60_000;
      while (!worker.output.stderr.includes('taking runs from queue agents')) {
        if (Date.now() > deadline || worker.child.exitCode !== null)
          throw new Error(`the worker did not start: ${worker.output.stderr}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      // A session that does not exist is refused, as for a local run.
      const missing = await runCli(['--db', url, '--enqueue', 'hi', '--session', 'nope']);
      expect(missing.code).toBe(2);
      expect(missing.stderr).toContain('no session nope');
      const first = await runCli(['--db', url, '--enqueue', 'What is 6*7?']);
      expect(first.stderr).toMatch(/enqueued run \S+ on queue agents, session \S+;/);
      expect(first.code).toBe(0);
      expect(first.stdout).toContain('42');
      const workflow = /enqueued run (\S+)/.exec(first.stderr)?.[1] ?? '';
      const session = /session ([^;\s]+);/.exec(first.stderr)?.[1] ?? '';
      const second = await runCli(['--db', url, '--enqueue', 'And 2+3?', '--session', session]);
      expect(second.code).toBe(0);
      expect(second.stdout).toContain('5');
      // The session holds both prompts: an mh without --enqueue lists it.
      const listed = await runCli(['--db', url, '--list-sessions']);
      expect(listed.stdout).toMatch(new RegExp(`${session}\\s+6\\b`));
      const followed = await runCli(['--db', url, '--workflow', workflow]);
      expect(followed.code).toBe(0);
      expect(followed.stdout).toContain('42');
      expect(followed.stderr).not.toContain('DeprecationWarning');
      // Decisions for a run that has ended: refused, nothing sent.
      const late = await runCli(['--db', url, '--workflow', workflow, '--approve', 'call_x']);
      expect(late.code).toBe(2);
      expect(late.stderr).toContain('has ended');
      const unknown = await runCli(['--db', url, '--workflow', 'no-such-run']);
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toContain('no run no-such-run');
    } finally {
      worker.child.kill('SIGTERM');
      const ended = await worker.done;
      expect(ended.code).toBe(143);
      expect(ended.stderr).toContain('mh worker: stopping');
    }
  });
});
