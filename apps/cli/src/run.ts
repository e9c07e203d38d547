import { existsSync } from 'node:fs';
import type { Interface } from 'node:readline';
import { createInterface } from 'node:readline';
import type { Cassette } from '@mh/eval';
import { ConfigError, type SessionStore, type ToolRegistry } from '@mh/sdk';
import type { Ask } from './approvals.js';
import type { CliOptions } from './args.js';
import {
  buildAgent,
  DEFAULT_MODELS,
  isPostgresUrl,
  localTools,
  type McpServers,
  newSessionId,
  openStore,
  replGreeting,
  shownDb,
  startMcpServers,
} from './build-agent.js';
import { CUT_OFF_EXIT_CODE, type Output, worseExitCode } from './event-renderer.js';
import { closeCliCassette, openCliCassette } from './record-replay.js';
import { Repl } from './repl.js';
import { listSessions } from './session-commands.js';
import { lockSession, type SessionLock } from './session-lock.js';
import { UsageError } from './usage-error.js';

/**
 * Runs what the parsed command line asks for, past `--help` and `--version`, and returns the exit
 * code. `main.ts` loads this module only then, so those two print without loading the SDK.
 */
export async function runCommand(options: CliOptions, version = '0.0.0'): Promise<number> {
  // Durable runs (DBOS over PostgreSQL) load only for their commands.
  if (options.worker) return await (await import('./durable.js')).runWorker(options, version);
  if (options.enqueue !== undefined || options.workflow !== undefined)
    return await (await import('./durable.js')).runEnqueued(options);
  // Listing tools reads no session: the database is neither opened nor created.
  const db = options.listTools && !options.listSessions ? undefined : options.db;
  if (db !== undefined) refuseMissingDatabase(db, options);
  const store = db === undefined ? undefined : await openStore(db);
  try {
    return await runWith(options, store);
  } finally {
    await store?.close();
  }
}

/**
 * Reading sessions (`--list-sessions`, `--session ID`) needs a SQLite file that exists: opening
 * one creates it, which would leave an empty database behind a typo. Only a new session creates it.
 */
function refuseMissingDatabase(db: string, options: CliOptions): void {
  if (isPostgresUrl(db) || existsSync(db)) return;
  if (options.listSessions)
    throw new UsageError(
      `--db ${db}: no such session database (nothing to list; a run with --db ${db} creates it)`,
    );
  if (options.session !== undefined)
    throw new UsageError(
      `--db ${db}: no such session database, so no session ${options.session} to resume (omit --session to start one)`,
    );
}

async function runWith(options: CliOptions, store: SessionStore | undefined): Promise<number> {
  if (options.listSessions && store) {
    await listSessions(store, (text) => process.stdout.write(text));
    return 0;
  }
  if (store && options.session !== undefined && !(await store.getSession(options.session))) {
    throw new UsageError(
      `no session ${options.session} in ${shownDb(options.db ?? '')} (see --list-sessions; omit --session to start one)`,
    );
  }
  // One mh per SQLite session at a time, before anything loads it (a new session's id too).
  const sessionId = store ? (options.session ?? newSessionId()) : undefined;
  const lock = sessionId === undefined ? undefined : lockLocalSession(options.db, sessionId);
  try {
    return await runSession({ ...options, session: sessionId }, store);
  } finally {
    lock?.release();
  }
}

/**
 * Locks a session of a SQLite file for this process (see `lockSession`); a PostgreSQL database is
 * shared across machines, where a lock file cannot reach: its store's conflict errors guard it.
 */
function lockLocalSession(db: string | undefined, sessionId: string): SessionLock | undefined {
  return db === undefined || isPostgresUrl(db) ? undefined : lockSession(db, sessionId);
}

async function runSession(options: CliOptions, store: SessionStore | undefined): Promise<number> {
  const model = options.model ?? DEFAULT_MODELS[options.provider ?? 'fake'];
  const cassette = await openCliCassette(options, model, (warning) =>
    process.stderr.write(`mh: warning: ${warning}\n`),
  );
  const registry = localTools(options);
  const servers = await startMcpServers(options, registry);
  try {
    const code = await runAgent(options, store, registry, servers, cassette);
    return cassette ? await closeCliCassette(cassette, code, process.stderr) : code;
  } finally {
    await servers.close();
  }
}

async function runAgent(
  options: CliOptions,
  store: SessionStore | undefined,
  registry: ToolRegistry,
  servers: McpServers,
  cassette: Cassette | undefined,
): Promise<number> {
  if (options.listTools) {
    for (const tool of registry.list()) {
      const server =
        servers.registered.find((entry) => entry.name === tool.name)?.server ?? 'local';
      const granted = tool.permission === 'read' || options.grants.includes(tool.permission);
      process.stdout.write(
        `${tool.name.padEnd(40)} ${tool.permission.padEnd(6)} ${server.padEnd(12)} ${granted ? 'allowed' : `needs --grant ${tool.permission}`}\n`,
      );
    }
    return 0;
  }
  // OpenTelemetry loads only for --trace.
  const observability = options.trace ? await import('@mh/observability') : undefined;
  const tracing = observability?.createTracing();
  const agent = await buildAgent(options, store, tracing?.tracer, registry, cassette);
  const output: Output = {
    out: process.stdout,
    err: process.stderr,
    color: Boolean(process.stderr.isTTY) && process.env.NO_COLOR === undefined,
    maxOutputTokens: options.maxOutputTokens,
  };
  // `--trace`: after each answer, the run's span tree and metrics on stderr.
  const printTrace =
    tracing && observability
      ? (): void => {
          const { renderTree, renderMetrics, metricsFromSpans } = observability;
          const records = tracing.records();
          process.stderr.write(
            `\n${renderTree(records)}\n${renderMetrics(metricsFromSpans(records))}\n`,
          );
          tracing.clear();
        }
      : undefined;
  const repl = new Repl(agent, output, (code) => process.exit(code), store, printTrace);
  const interactive = Boolean(process.stdin.isTTY);
  if (options.prompt === undefined && !interactive) repl.batch();
  // At a terminal, calls waiting for approval are asked about on the REPL's own line reader.
  const lines = interactive
    ? createInterface({ input: process.stdin, output: process.stdout, terminal: true })
    : undefined;
  lines?.on('SIGINT', () => repl.interrupt());
  // A recorded or replayed run is resumed through the same cassette (see `cliKey`).
  const cassetteFlag =
    options.record !== undefined
      ? `--record ${options.record} `
      : options.replay !== undefined
        ? `--replay ${options.replay} `
        : '';
  repl.approvals(
    lines ? askOn(lines) : undefined,
    store
      ? `${cassetteFlag}--db ${shownDb(options.db ?? '')} --session ${options.session}`
      : undefined,
  );
  process.on('SIGINT', () => repl.interrupt());
  // `kill PID` and a closed terminal cancel the answer as Ctrl-C does (recorded, so a resume does
  // not answer it again), then exit 128 + the signal's number.
  for (const [signal, code] of [
    ['SIGTERM', 143],
    ['SIGHUP', 129],
  ] as const) {
    process.on(signal, () => {
      process.stderr.write(
        `\nmh: ${signal}: cancelling the answer, if any, and exiting (${code})\n`,
      );
      repl.stop(code);
    });
  }
  // The worst outcome so far, the resume at start included: a script must see that it failed.
  let worst = 0;
  if (store) {
    const history = await agent.load();
    const where = agent.session;
    process.stderr.write(
      `(session ${where?.id}, branch ${where?.branch}: ${history.length} message(s); resume with --db ${shownDb(options.db ?? '')} --session ${where?.id})\n`,
    );
    // A turn a crash interrupted, or calls waiting for approval, are finished before anything else.
    const resumed = await resumeWith(repl, options);
    // A resumed turn cut off at the output limit still ended; only a failed one stops the prompt.
    if (resumed !== 0 && resumed !== CUT_OFF_EXIT_CODE && options.prompt !== undefined)
      return resumed;
    // A resume the user cancelled (130) is their choice: the lines below still run.
    if (resumed !== 130) worst = worseExitCode(worst, resumed);
  }

  if (options.prompt !== undefined) {
    try {
      return worseExitCode(worst, await repl.ask(options.prompt));
    } finally {
      lines?.close();
    }
  }

  const reader =
    lines ?? createInterface({ input: process.stdin, output: undefined, terminal: false });
  if (!lines) reader.on('SIGINT', () => repl.interrupt());
  if (interactive) {
    process.stderr.write(replGreeting(options, cassette));
    reader.setPrompt('> ');
    reader.prompt();
  }
  for await (const line of reader) {
    const code = await repl.line(line);
    if (code === 'exit') break;
    // A cancelled line (130) was not answered: a script must see that, as it sees a failure.
    worst = worseExitCode(worst, code);
    if (interactive) reader.prompt();
  }
  reader.close();
  // Piped prompts report the worst outcome, so a script can tell that a run failed.
  return interactive ? 0 : worst;
}

/** Asks one question on `lines`; the end of input (Ctrl-D) answers with an empty line (no). */
function askOn(lines: Interface): Ask {
  return (question) =>
    new Promise((resolve) => {
      const closed = (): void => resolve('');
      lines.once('close', closed);
      lines.question(question, (answer) => {
        lines.off('close', closed);
        resolve(answer);
      });
    });
}

/**
 * The resume at start, with `--approve`/`--deny` as its decisions. A decision the session does
 * not wait for is a usage error naming the flag as typed.
 */
async function resumeWith(repl: Repl, options: CliOptions): Promise<number> {
  if (options.decisions.length === 0) return repl.resume();
  try {
    return await repl.resume(options.decisions);
  } catch (error) {
    if (!ConfigError.isInstance(error)) throw error;
    const id = [...options.decisionFlags.keys()].find((callId) =>
      error.message.includes(`id ${callId}`),
    );
    const flag = id === undefined ? undefined : options.decisionFlags.get(id);
    throw new UsageError(
      flag === undefined
        ? `${options.decisionFlags.values().next().value}: ${error.message.slice(`${error.field}: `.length)}`
        : `${flag}: no call of session ${options.session} waits for approval with this id (unknown, or already decided)`,
    );
  }
}
