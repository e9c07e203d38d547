import { describe, expect, it } from 'vitest';
import { SESSION_COMMANDS } from '../src/session-commands.js';
import { runCli } from './run-cli.js';

describe('/help in the REPL', { timeout: 60_000 }, () => {
  it('lists the REPL commands briefly and points at mh --help for the command line', async () => {
    const run = await runCli(['--fake'], '/help\n');
    expect(run.code).toBe(0);
    const lines = run.stdout.trimEnd().split('\n');
    for (const command of ['/help', '/exit', '/reset', '/history', ...SESSION_COMMANDS])
      expect(
        lines.some((line) => line.trimStart().startsWith(command)),
        command,
      ).toBe(true);
    expect(run.stdout).toContain('mh --help');
    // Not the whole command-line help: no usage, no flags.
    expect(run.stdout).not.toMatch(/Usage:|--provider NAME|--list-sessions/);
    expect(lines.length).toBeLessThanOrEqual(16);
  });
});
