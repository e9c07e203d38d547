#!/usr/bin/env node
import { createRequire } from 'node:module';
import { parseCliArgs } from './args.js';
import { quietOnClosedPipes } from './closed-pipes.js';
import { HELP } from './help.js';
import { UsageError } from './usage-error.js';

// Only the argument parser and the help load up front: `--help` and `--version` need nothing
// else, and a run loads the SDK and, within it, what each flag needs (see run.ts).
async function main(argv: readonly string[]): Promise<number> {
  const options = parseCliArgs(argv);
  if (options.help) {
    process.stdout.write(HELP);
    return 0;
  }
  const version = (createRequire(import.meta.url)('../package.json') as { version: string })
    .version;
  if (options.version) {
    process.stdout.write(`mh ${version}\n`);
    return 0;
  }
  const { runCommand } = await import('./run.js');
  return await runCommand(options, version);
}

/** Prints a failure of `main` on stderr and returns the exit code it calls for. */
async function reportFailure(error: unknown): Promise<number> {
  if (error instanceof UsageError) {
    process.stderr.write(`mh: ${error.message}\n`);
    return 2;
  }
  // Anything else was thrown past the parser, so the SDK is loaded already.
  const { ConfigError, McpProtocolError, SessionStoreUnavailableError } = await import('@mh/sdk');
  const { conflictMessage } = await import('./conflict-message.js');
  const conflict = conflictMessage(error);
  if (conflict !== undefined) {
    process.stderr.write(`mh: ${conflict}\n`);
    return 1;
  }
  if (ConfigError.isInstance(error)) {
    process.stderr.write(`mh: ${error.message}\n`);
    return 2;
  }
  if (SessionStoreUnavailableError.isInstance(error) || McpProtocolError.isInstance(error)) {
    // The session database is down, restarting or locked, or an MCP server cannot be started or
    // reached: the message names it and says why.
    process.stderr.write(`mh: ${error.message}\n`);
    return 1;
  }
  process.stderr.write(
    `mh: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  return 1;
}

// A reader that goes away (`mh … | head`) is not an error of ours: set before the first write.
quietOnClosedPipes();
main(process.argv.slice(2))
  .catch(reportFailure)
  .then((code) => {
    process.exitCode = code;
  });
