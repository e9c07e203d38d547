import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startCli, waitFor } from './run-cli.js';

function database(): string {
  return join(mkdtempSync(join(tmpdir(), 'mh-piped-interrupt-')), 'mh.db');
}

const ANSWER = 'Ask me some arithmetic or about the files here.';
const LINES = Array.from({ length: 10 }, (_, i) => `hello ${i + 1}\n`).join('');

/** Piped `mh --fake` over ten lines, each answer streamed slowly enough to be interrupted. */
function startBatch(): ReturnType<typeof startCli> {
  const run = startCli(['--fake', '--fake-delay-ms', '100', '--db', database()]);
  run.child.stdin.end(LINES);
  return run;
}

// Piped input has no terminal, so Ctrl-C arrives as a SIGINT to the process.
describe('mh with piped input on Ctrl-C (SIGINT)', { timeout: 60_000 }, () => {
  it('cancels the running line, goes on with the others and exits 130 (a cancelled line)', async () => {
    const { child, output, done } = startBatch();
    const show = (): string => `${output.stdout}\n${output.stderr}`;
    await waitFor(() => output.stdout.includes('I am the offline'), 10_000, show);
    child.kill('SIGINT');
    const run = await done;
    expect(run.stderr).toContain('(cancelled)');
    expect(run.stdout.split(ANSWER).length - 1).toBe(9);
    expect(run.code).toBe(130);
  });

  it('stops reading lines and exits 130 on a second SIGINT', async () => {
    const { child, output, done } = startBatch();
    const show = (): string => `${output.stdout}\n${output.stderr}`;
    await waitFor(() => output.stdout.includes('I am the offline'), 10_000, show);
    child.kill('SIGINT');
    await waitFor(() => output.stderr.includes('(cancelled)'), 10_000, show);
    await new Promise((resolve) => setTimeout(resolve, 200));
    child.kill('SIGINT');
    await new Promise((resolve) => setTimeout(resolve, 200));
    if (child.exitCode === null) child.kill('SIGINT');
    const run = await done;
    expect(run.code).toBe(130);
    // Ten lines take well over two seconds: the batch ended early.
    expect(run.stdout.split(ANSWER).length - 1).toBeLessThan(5);
  });
});
