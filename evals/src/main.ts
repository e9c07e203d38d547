import { join } from 'node:path';
import { ConfigError } from '@mh/core';
import { HELP, invocationDir, parseSuiteArgs } from './cli/args.js';
import { runSuite } from './run/run-suite.js';

/**
 * Runs `run-real` with `argv`; resolves to the exit code (0 done, 2 bad usage, 1 failure).
 * Relative paths in `argv` are taken from `cwd` (default: the folder the user started from).
 */
export async function main(
  argv: readonly string[],
  cwd: string = invocationDir(),
): Promise<number> {
  let command: ReturnType<typeof parseSuiteArgs>;
  try {
    command = parseSuiteArgs(argv, cwd);
  } catch (error) {
    if (!ConfigError.isInstance(error)) throw error;
    process.stderr.write(`run-real: ${error.message}\n(see --help)\n`);
    return 2;
  }
  if (command.kind === 'help') {
    process.stdout.write(HELP);
    return 0;
  }
  try {
    const result = await runSuite(command.options);
    const marker = command.options.dryRun ? ' (DRY RUN)' : '';
    const success = result.report.summary.success;
    process.stdout.write(
      `${success.passed}/${success.runs} runs passed${marker}\n` +
        `summary: ${join(result.out, 'summary.md')}\n` +
        `report:  ${join(result.out, 'report.json')}\n` +
        `runs:    ${join(result.out, 'runs')}\n`,
    );
    return 0;
  } catch (error) {
    if (ConfigError.isInstance(error)) {
      process.stderr.write(`run-real: ${error.message}\n`);
      return 2;
    }
    process.stderr.write(
      `run-real: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    return 1;
  }
}
