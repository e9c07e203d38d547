import { join } from 'node:path';
import { ConfigError } from '@mh/core';
import { HELP, invocationDir, parseSuiteArgs } from './cli/args.js';
import { oracleFailures } from './cli/oracle-failures.js';
import { runSuite } from './run/run-suite.js';

/**
 * Runs `run-real` with `argv`; resolves to the exit code: 0 done, 2 bad usage, 1 failure, which
 * includes a dry run in which any oracle run failed (the failing tasks are named on stderr). A
 * real model's wrong answers are results, not failures: a real run that finishes exits 0.
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
    const failures = command.options.dryRun ? oracleFailures(result.report) : [];
    if (failures.length === 0) return 0;
    process.stderr.write(
      `run-real: dry run failed: ${success.runs - success.passed} of ${success.runs} oracle runs did not pass, in ${failures.length} task${failures.length === 1 ? '' : 's'}:\n${failures.map((line) => `  ${line}\n`).join('')}`,
    );
    return 1;
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
