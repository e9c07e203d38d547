import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, startCli, waitFor } from './run-cli.js';

const LONG_PROMPT = `Please tell me a story about ${'a very long winding road '.repeat(20)}`;

describe('mh one-shot', () => {
  it('calls the calculator and answers 42 for What is 6*7?', async () => {
    const run = await runCli(['--fake', 'What is 6*7?']);
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toBe('The answer is 42.');
    expect(run.stderr).toContain('calculator {"expression":"6*7"}');
    expect(run.stderr).toContain('↳ 42');
  });

  it('reads a file of the --root folder with the workspace tools', async () => {
    const root = mkdtempSync(join(tmpdir(), 'mh-cli-'));
    writeFileSync(join(root, 'notes.txt'), 'order number A-1234\n');
    const run = await runCli(['--fake', '--root', root, 'Read notes.txt please']);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('read_file');
    expect(run.stdout).toContain('A-1234');
  });

  it('stops with exit code 1 and names the guard when --max-turns is reached', async () => {
    const run = await runCli(['--fake', '--max-turns', '1', 'What is 6*7?']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('max-turns');
  });

  it('states the time a --timeout-ms guard stopped at in milliseconds', async () => {
    const run = await runCli(['--fake', '--fake-delay-ms', '50', '--timeout-ms', '1', 'hi']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/\(stopped: Guard timeout tripped: \d+ ms reached the limit 1 ms\)/);
  });
});

describe('mh --trace', () => {
  it('prints the span tree and metrics of each answer on stderr', async () => {
    const run = await runCli(['--fake', '--trace', 'What is 6*7?']);
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toBe('The answer is 42.');
    expect(run.stderr).toMatch(/run completed .* 2 turns/);
    expect(run.stderr).toMatch(/tool calculator/);
    expect(run.stderr).toContain('tools: 1 calls · 0 errors');
  });
});

describe('mh command line', () => {
  it('prints complete help and exits 0', async () => {
    const run = await runCli(['--help']);
    expect(run.code).toBe(0);
    for (const flag of [
      '--fake',
      '--provider',
      '--model',
      '--system',
      '--max-turns',
      '--timeout-ms',
      '--root',
      '--grant',
      '--fake-delay-ms',
      '--help',
      '--version',
    ]) {
      expect(run.stdout).toContain(flag);
    }
  });

  it('rejects an unknown flag with one line and exit code 2', async () => {
    const run = await runCli(['--fake', '--frobnicate', 'hi']);
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toContain('--frobnicate');
  });

  it('rejects a bad value with one line and exit code 2', async () => {
    const run = await runCli(['--fake', '--max-turns', 'zero', 'hi']);
    expect(run.code).toBe(2);
    expect(run.stderr.trim()).toBe("mh: --max-turns expects a positive integer, got 'zero'");
  });

  it('rejects a number too large to hold exactly, naming the flag (exit 2)', async () => {
    const run = await runCli(['--fake', '--max-turns', '99999999999999999999', 'hi']);
    expect([run.code, run.stderr.trim()]).toEqual([
      2,
      "mh: --max-turns expects a positive integer up to 9007199254740991, got '99999999999999999999'",
    ]);
  });

  it('names --root and --timeout-ms, not the library options, when their values are refused', async () => {
    const root = await runCli(['--fake', '--root', '/nonexistent/mh-root', 'hi']);
    expect([root.code, root.stderr.trim()]).toEqual([
      2,
      'mh: --root: cannot open /nonexistent/mh-root',
    ]);
    const timeout = await runCli(['--fake', '--timeout-ms', '99999999999', 'hi']);
    expect([timeout.code, timeout.stderr.trim()]).toEqual([
      2,
      'mh: --timeout-ms: expected at most 2147483647 ms (about 24.8 days, the longest timer Node can arm), got 99999999999',
    ]);
  });

  it('names --fake-delay-ms when its value is longer than a timer can wait', async () => {
    const run = await runCli(['--fake', '--fake-delay-ms', '99999999999', 'hi']);
    expect([run.code, run.stderr.trim()]).toEqual([
      2,
      "mh: --fake-delay-ms expects an integer from 0 to 2147483647 (ms; the longest timer Node can arm), got '99999999999'",
    ]);
  });

  it('asks for a provider when none is chosen, exit code 2', async () => {
    const run = await runCli(['hello']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--fake');
  });

  it('names the environment variable, not a library option, when a provider has no key', async () => {
    // runCli gives mh only PATH and HOME: no key is set.
    const claude = await runCli(['--provider', 'anthropic', 'hello']);
    expect([claude.code, claude.stderr.trim()]).toEqual([
      2,
      'mh: --provider anthropic needs an API key: set the ANTHROPIC_API_KEY environment variable',
    ]);
    const gpt = await runCli(['--provider', 'openai', 'hello']);
    expect([gpt.code, gpt.stderr.trim()]).toEqual([
      2,
      'mh: --provider openai needs an API key: set the OPENAI_API_KEY environment variable (a server given with --base-url may need none)',
    ]);
  });
});

describe('mh REPL', () => {
  it('answers piped lines in one conversation and exits 0 at end of input', async () => {
    const run = await runCli(['--fake'], 'What is 2+2?\nWhat is 3*3?\n/history\n');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('The answer is 4.');
    expect(run.stdout).toContain('The answer is 9.');
    // Both questions, two calls and two answers live in one history: 8 messages.
    const historyLines = run.stdout.split('\n').filter((line) => /^(user|assistant) /.test(line));
    expect(historyLines).toHaveLength(8);
  });

  it('cancels the running answer on Ctrl-C and keeps going', async () => {
    const { child, output, done } = startCli(['--fake', '--fake-delay-ms', '40']);
    child.stdin.write(`${LONG_PROMPT}\n`);
    await waitFor(() => output.stdout.length > 0);
    child.kill('SIGINT');
    await waitFor(() => output.stderr.includes('(cancelled)'));
    child.stdin.end('What is 5+5?\n');
    const run = await done;
    // The next line is answered; the cancelled one was not, so the batch exits 130.
    expect(run.code).toBe(130);
    expect(run.stdout).toContain('The answer is 10.');
    expect(run.stdout).not.toContain('You said');
  });

  it('exits with 130 on a second Ctrl-C', async () => {
    const { child, output, done } = startCli(['--fake', '--fake-delay-ms', '40']);
    child.stdin.write(`${LONG_PROMPT}\n`);
    await waitFor(() => output.stdout.length > 0);
    child.kill('SIGINT');
    await waitFor(() => output.stderr.includes('(cancelled)'));
    child.kill('SIGINT');
    const run = await done;
    expect(run.code).toBe(130);
  });
});

describe('mh edge cases', () => {
  it('reads the options after the -- that `pnpm mh -- …` passes on', async () => {
    const run = await runCli(['--', '--fake', 'What is 6*7?']);
    expect([run.code, run.stdout.trim()]).toEqual([0, 'The answer is 42.']);
    // After options, -- still ends them: the prompt may then start with a dash.
    const dashed = await runCli(['--fake', '--', '-7 + 1 is what?']);
    expect(dashed.code).toBe(0);
  });

  it('explains in one line how to pass a value that starts with a dash', async () => {
    const run = await runCli(['--fake', '--system', '-be terse', 'hi']);
    expect(run.code).toBe(2);
    expect(run.stderr.trim()).toBe(
      "mh: --system: a value starting with '-' must be written --system=VALUE",
    );
  });

  it('exits quietly when the reader closes the pipe early', async () => {
    const { child, done } = startCli(['--fake']);
    child.stdout.destroy();
    child.stdin.end(`${'hello\n'.repeat(200)}`);
    const run = await done;
    expect(run.stderr).not.toContain('EPIPE');
    expect(run.code).toBe(0);
  });

  it('reports the worst outcome of piped prompts in its exit code', async () => {
    const run = await runCli(['--fake', '--max-turns', '1'], 'hello\nWhat is 2+2?\n');
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('Hello!');
  });
});
