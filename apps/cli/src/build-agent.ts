import type { DurableAgentContext } from '@mh/durable-dbos';
import type { Cassette } from '@mh/eval';
import type { Provider, SessionStore, Tracer } from '@mh/sdk';
import {
  Agent,
  ConfigError,
  calculatorTool,
  fake,
  ToolRegistry,
  withRetry,
  workspaceTools,
} from '@mh/sdk';
import type { CliOptions } from './args.js';
import { cassetteProvider, cassetteTools, cliKey, recordedModel } from './record-replay.js';
import { UsageError } from './usage-error.js';

/** The model used when `--model` is not given. */
export const DEFAULT_MODELS: Readonly<Record<NonNullable<CliOptions['provider']>, string>> = {
  fake: 'fake',
  anthropic: 'claude-sonnet-4-5',
  openai: 'gpt-4o',
};

/**
 * The provider the command line names. A missing key is a usage error naming the environment
 * variable: the provider's own error also offers its `apiKey` option, which mh has no flag for.
 */
export async function buildProvider(options: CliOptions): Promise<Provider> {
  try {
    return await buildNamedProvider(options);
  } catch (error) {
    if (!ConfigError.isInstance(error) || error.field !== 'apiKey') throw error;
    const variable = options.provider === 'openai' ? 'OPENAI_API_KEY' : 'ANTHROPIC_API_KEY';
    const keyless =
      options.provider === 'openai' ? ' (a server given with --base-url may need none)' : '';
    throw new UsageError(
      `--provider ${options.provider} needs an API key: set the ${variable} environment variable${keyless}`,
    );
  }
}

/** The provider the command line names; vendor SDKs load only when chosen. */
async function buildNamedProvider(options: CliOptions): Promise<Provider> {
  switch (options.provider) {
    case undefined:
      throw new UsageError(
        'choose a model provider: --fake runs the offline model (see mh --help)',
      );
    case 'fake':
      return fake({ delayMs: options.fakeDelayMs });
    case 'anthropic': {
      const { anthropic } = await import('@mh/providers/anthropic');
      return withRetry(anthropic({ baseURL: options.baseURL }));
    }
    case 'openai': {
      const { openai } = await import('@mh/providers/openai');
      return withRetry(openai({ baseURL: options.baseURL, api: options.api }));
    }
  }
}

/**
 * A `ConfigError` on one of `flags`' option names, as the usage error on the flag an mh user
 * typed ("mh: --root: cannot open …" rather than "mh: root: …"); any other error as it is.
 */
function asFlagError(error: unknown, flags: Readonly<Record<string, string>>): unknown {
  if (!ConfigError.isInstance(error) || !Object.hasOwn(flags, error.field)) return error;
  // The rest of the message already says what is wrong and with which value.
  return new UsageError(`${flags[error.field]}: ${error.message.slice(`${error.field}: `.length)}`);
}

/** The built-in tools: the calculator and the read-only workspace tools. */
export function localTools(options: CliOptions): ToolRegistry {
  try {
    return new ToolRegistry([calculatorTool(), ...workspaceTools({ root: options.root })]);
  } catch (error) {
    throw asFlagError(error, { root: '--root' });
  }
}

/** A session id for `--db` without `--session`: sortable by time, unique enough for one user. */
export function newSessionId(now: Date = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\..*$/, '').replace('T', '-');
  return `s-${stamp}-${Math.random().toString(36).slice(2, 6)}`;
}

const POSTGRES_URL = /^postgres(ql)?:\/\//i;

/** Whether `--db` names a PostgreSQL database (else it is a SQLite file). */
export function isPostgresUrl(db: string): boolean {
  return POSTGRES_URL.test(db);
}

/**
 * Opens the session store `--db` names: a PostgreSQL database for a `postgres://` URL (many
 * machines can share it), else a SQLite file. Each store and its driver load only when used.
 */
export async function openStore(db: string): Promise<SessionStore> {
  try {
    if (POSTGRES_URL.test(db)) {
      const { openPostgresStore } = await import('@mh/session-sql/postgres');
      return await openPostgresStore({ connectionString: db });
    }
    const { openSqliteStore } = await import('@mh/session-sql');
    return await openSqliteStore(db);
  } catch (error) {
    // The stores name their own options; on the command line both are --db. The rest of the
    // message already says which file or server, password removed.
    throw asFlagError(error, { path: '--db', connectionString: '--db' });
  }
}

/** `--db` as mh prints it: a PostgreSQL URL loses its password. */
export function shownDb(db: string): string {
  if (!POSTGRES_URL.test(db)) return db;
  try {
    const url = new URL(db);
    url.password = '';
    return url.toString();
  } catch {
    return 'the PostgreSQL database given to --db';
  }
}

/** MCP servers started for the run; `close()` stops them all. */
export interface McpServers {
  readonly registered: readonly {
    readonly server: string;
    readonly name: string;
    readonly permission: string;
  }[];
  close(): Promise<void>;
}

/** Starts the `--mcp` servers and registers their tools as ordinary tools. */
export async function startMcpServers(
  options: CliOptions,
  registry: ToolRegistry,
): Promise<McpServers> {
  const clients: { close(): Promise<void> }[] = [];
  const registered: { server: string; name: string; permission: string }[] = [];
  let close = async (): Promise<void> => {
    await Promise.allSettled(clients.map((client) => client.close()));
  };
  if (options.mcp.length === 0) return { registered, close };
  const { McpClient, registerMcpTools, killAllServerGroups } = await import('@mh/mcp');
  // Servers run in their own process groups, out of reach of the terminal's signals: on SIGTERM,
  // SIGHUP or Ctrl-C while nothing else handles it, kill their groups, then exit. Once the session
  // handles them (it cancels the answer first), its `process.exit` kills the groups.
  const exitWith = (code: number) => (): void => {
    killAllServerGroups();
    process.exit(code);
  };
  const exitAlone = (signal: NodeJS.Signals, code: number) => (): void => {
    if (process.listenerCount(signal) === 1) exitWith(code)();
  };
  const handlers = [
    ['SIGTERM', exitAlone('SIGTERM', 143)],
    ['SIGHUP', exitAlone('SIGHUP', 129)],
  ] as const;
  for (const [signal, handler] of handlers) process.on(signal, handler);
  // Ctrl-C exits until someone else (the session: first Ctrl-C cancels the answer) listens.
  const onInterrupt = (): void => {
    if (process.listenerCount('SIGINT') === 1) exitWith(130)();
  };
  process.on('SIGINT', onInterrupt);
  const closeServers = close;
  close = async (): Promise<void> => {
    await closeServers();
    for (const [signal, handler] of handlers) process.off(signal, handler);
    process.off('SIGINT', onInterrupt);
  };
  // Every warning of the client and of the registry already starts with "MCP server NAME:".
  const onWarning = (warning: string): void => {
    process.stderr.write(`mh: ${warning}\n`);
  };
  try {
    for (const server of options.mcp) {
      const client = new McpClient(
        server.name,
        'url' in server ? { url: server.url } : { command: server.command, args: server.args },
        // A server's elicitation during a tool call becomes that call's question to the user
        // (asked at a terminal, or answered later with --answer).
        options.mcpTimeoutMs === undefined
          ? { onWarning, elicitation: 'interrupt' }
          : { onWarning, elicitation: 'interrupt', initTimeoutMs: options.mcpTimeoutMs },
      );
      clients.push(client);
      await client.connect();
      const result = await registerMcpTools(registry, client, { onWarning });
      for (const tool of result.registered) {
        registered.push({ server: server.name, name: tool.name, permission: tool.permission });
      }
    }
  } catch (error) {
    await close();
    throw error;
  }
  return { registered, close };
}

/** The model the run asks for: `--model`, else the recorded one of a replay, else the default. */
export function runModel(options: CliOptions, cassette?: Cassette): string {
  return options.model ?? recordedModel(cassette) ?? DEFAULT_MODELS[options.provider ?? 'fake'];
}

/** The REPL's first line: which model answers (a replay without a provider: the recording). */
export function replGreeting(options: CliOptions, cassette?: Cassette): string {
  const who =
    cassette?.mode === 'lockdown'
      ? `replaying ${cassette.path}, model ${runModel(options, cassette)}`
      : options.provider === 'fake'
        ? 'offline fake model'
        : `${options.provider}, model ${runModel(options, cassette)}`;
  return `mh — ${who}. Type a question, /help for commands, Ctrl-C twice to exit.\n`;
}

/** Builds the agent the command line describes. */
export async function buildAgent(
  options: CliOptions,
  store?: SessionStore,
  tracer?: Tracer,
  registry: ToolRegistry = localTools(options),
  cassette?: Cassette,
): Promise<Agent> {
  // A lockdown replay builds no provider: no key, no vendor client, no network.
  const live = cassette?.mode === 'lockdown' ? undefined : await buildProvider(options);
  const provider = cassetteProvider(cassette, live, cliKey(options));
  const session = store ? { store, id: options.session ?? newSessionId() } : undefined;
  return agentFor(options, { provider, registry, session, tracer, cassette });
}

/**
 * The agent the command line describes, on `provider` and `registry`; in a durable worker
 * (`durable`), with the workflow's steps, session and fence.
 */
export function agentFor(
  options: CliOptions,
  parts: {
    readonly provider: Provider;
    readonly registry: ToolRegistry;
    readonly session?: { readonly store: SessionStore; readonly id: string };
    readonly tracer?: Tracer;
    readonly cassette?: Cassette;
    readonly durable?: DurableAgentContext;
  },
): Agent {
  const { durable, cassette } = parts;
  try {
    return new Agent({
      session: durable?.session ?? parts.session,
      ...(durable ? { steps: durable.steps, fencing: durable.fencing } : {}),
      tracer: parts.tracer,
      provider: parts.provider,
      model: runModel(options, cassette),
      system: options.system,
      maxOutputTokens: options.maxOutputTokens,
      tools: cassetteTools(cassette, parts.registry, options.grants, cliKey(options)),
      // A write or exec call not granted waits for the person (asked at a terminal, else the run
      // ends with it waiting: --approve/--deny answer it later) instead of being refused.
      permissions: { grants: options.grants, onAsk: 'interrupt' },
      limits: { maxTurns: options.maxTurns, timeoutMs: options.timeoutMs },
      compaction: !options.compaction
        ? false
        : options.contextWindow !== undefined
          ? { contextWindow: options.contextWindow }
          : undefined,
    });
  } catch (error) {
    // The agent knows the limits' bounds (a timer holds at most 2^31 - 1 ms); mh names its flags.
    throw asFlagError(error, {
      'limits.maxTurns': '--max-turns',
      'limits.timeoutMs': '--timeout-ms',
      maxOutputTokens: '--max-output-tokens',
    });
  }
}
