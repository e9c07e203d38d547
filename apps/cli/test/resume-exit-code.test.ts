import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, startCli, waitFor } from './run-cli.js';

let server: Server | undefined;
afterEach(() => server?.close());

/** An OpenAI-compatible endpoint on loopback that refuses every call (401: not retried). */
function refusingEndpoint(): Promise<string> {
  const created = createServer((request, response) => {
    request.resume().on('end', () => {
      response.writeHead(401, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({ error: { message: 'bad key', type: 'invalid_request_error' } }),
      );
    });
  });
  server = created;
  return new Promise((resolve) => {
    created.listen(0, '127.0.0.1', () => {
      resolve(`http://127.0.0.1:${(created.address() as AddressInfo).port}/v1`);
    });
  });
}

/** A session whose last prompt a kill -9 left unanswered: the next mh --session resumes it. */
async function crashedSession(): Promise<{ db: string; id: string }> {
  const db = join(mkdtempSync(join(tmpdir(), 'mh-resume-')), 'mh.db');
  const { child, output, done } = startCli(['--fake', '--db', db, '--fake-delay-ms', '40']);
  child.stdin.write(`Tell me a story about ${'a long road '.repeat(15)}\n`);
  await waitFor(() => output.stdout.length > 0);
  child.kill('SIGKILL');
  await done;
  const id = /session (\S+),/.exec(output.stderr)?.[1] ?? '';
  expect(id).not.toBe('');
  return { db, id };
}

describe('a resume that fails when mh starts', { timeout: 90_000 }, () => {
  it('counts in the exit code of piped input, even when every line succeeds', async () => {
    const { db, id } = await crashedSession();
    const url = await refusingEndpoint();
    const run = await runCli(
      ['--provider', 'openai', '--base-url', url, '--db', db, '--session', id],
      '/history\n',
    );
    expect(run.stderr).toMatch(/error: .*401/);
    expect(run.stdout).toMatch(/^user /m);
    expect(run.code).toBe(1);
  });

  it('is still 0 when the resume succeeds and the lines do', async () => {
    const { db, id } = await crashedSession();
    const run = await runCli(['--fake', '--db', db, '--session', id], '/history\n');
    expect(run.code).toBe(0);
  });
});
