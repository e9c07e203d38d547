import { spawn, spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { MAIN, waitFor } from './run-cli.js';

// util-linux `script` gives the CLI a real pseudo-terminal, so readline runs in raw mode and
// Ctrl-C arrives as a keystroke (0x03), exactly as at a person's terminal.
const hasScript = spawnSync('script', ['--version']).status === 0;

describe.skipIf(!hasScript)('mh REPL in a pseudo-terminal', () => {
  it('cancels the answer on the first Ctrl-C, answers the next prompt, exits 130 on two more', async () => {
    const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(MAIN)} --fake --fake-delay-ms 40`;
    const child = spawn('script', ['-qfec', command, '/dev/null'], {
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        TERM: 'dumb',
        NO_COLOR: '1',
      },
    });
    let screen = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      screen += chunk;
    });
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    const shown = (): string => screen;
    await waitFor(() => screen.includes('> '), 10_000, shown);
    child.stdin.write(`Tell me a story about ${'a long road '.repeat(15)}\r`);
    await waitFor(() => screen.includes('I am the offline'), 10_000, shown);
    child.stdin.write('\x03');
    await waitFor(() => screen.includes('(cancelled)'), 10_000, shown);
    child.stdin.write('What is 5+5?\r');
    await waitFor(() => screen.includes('The answer is 10.'), 10_000, shown);
    // The next prompt shows once the run has ended: from then on Ctrl-C is an idle interrupt.
    await waitFor(
      () => screen.lastIndexOf('> ') > screen.indexOf('The answer is 10.'),
      10_000,
      shown,
    );
    child.stdin.write('\x03');
    await waitFor(() => screen.includes('press Ctrl-C again'), 10_000, shown);
    child.stdin.write('\x03');
    expect(await exited).toBe(130);
    expect(screen).not.toContain('You said: "Tell me a story');
  });

  it('names the provider and model in the greeting, not the fake model, for a real provider', async () => {
    // A local OpenAI-compatible endpoint needs no key; nothing is asked before /exit.
    const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(MAIN)} --provider openai --base-url http://127.0.0.1:9/v1 --model local-7b`;
    const child = spawn('script', ['-qfec', command, '/dev/null'], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', TERM: 'dumb' },
    });
    let screen = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      screen += chunk;
    });
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    await waitFor(
      () => screen.includes('> '),
      10_000,
      () => screen,
    );
    child.stdin.write('/exit\r');
    expect(await exited).toBe(0);
    expect(screen).toContain('mh — openai, model local-7b.');
    expect(screen).not.toContain('offline fake model');
  });
});
