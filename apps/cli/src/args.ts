import { parseArgs } from 'node:util';
import type { Decision } from '@mh/sdk';
import { decisionsOf } from './approvals.js';
import { refuseListingConflicts } from './listing-conflicts.js';
import { UsageError } from './usage-error.js';

/** What the command line asked for. */
export interface CliOptions {
  readonly help: boolean;
  readonly version: boolean;
  readonly provider: ProviderName | undefined;
  readonly baseURL: string | undefined;
  readonly api: 'chat' | 'responses' | undefined;
  readonly model: string | undefined;
  readonly system: string | undefined;
  readonly maxTurns: number | undefined;
  readonly timeoutMs: number | undefined;
  /** `--max-output-tokens N`: the most tokens the model may write per call. */
  readonly maxOutputTokens: number | undefined;
  /** Overrides the model's context window (tokens): compaction starts at 80% of it. */
  readonly contextWindow: number | undefined;
  /** `--no-compaction`: never compact. */
  readonly compaction: boolean;
  readonly root: string;
  readonly grants: readonly ('write' | 'exec')[];
  readonly fakeDelayMs: number;
  readonly db: string | undefined;
  readonly session: string | undefined;
  readonly listSessions: boolean;
  readonly trace: boolean;
  /**
   * MCP servers: a name and a command line to start over stdio (split on whitespace; quotes
   * group), or a URL (http:// or https://) to reach over streamable HTTP.
   */
  readonly mcp: readonly (
    | { readonly name: string; readonly command: string; readonly args: readonly string[] }
    | { readonly name: string; readonly url: string }
  )[];
  readonly listTools: boolean;
  /** `--mcp-timeout-ms N`: how long an MCP server gets to start and answer the handshake. */
  readonly mcpTimeoutMs: number | undefined;
  /** `--record FILE`: record the run's model calls and tool results into a new cassette. */
  readonly record: string | undefined;
  /** `--replay FILE`: serve the run from a cassette and report drift. */
  readonly replay: string | undefined;
  /**
   * `--approve ID`, `--deny ID[=MESSAGE]`, `--answer ID=TEXT` and `--answer-json ID=JSON`: a
   * person's decisions on the session's waiting calls (approvals, and answers to a tool's
   * questions), given when it resumes; `decisionFlags` maps each call id to the flag as typed.
   */
  readonly decisions: readonly Decision[];
  readonly decisionFlags: ReadonlyMap<string, string>;
  /** The one-shot prompt; undefined starts the REPL. */
  readonly prompt: string | undefined;
  /** `mh worker`: run a durable worker (needs `--db postgres://…`). */
  readonly worker: boolean;
  /** `--enqueue PROMPT`: enqueue a durable run for the workers and follow it. */
  readonly enqueue: string | undefined;
  /** `--workflow ID`: follow a durable run (and send it `--approve`/`--deny` decisions). */
  readonly workflow: string | undefined;
  /** `--queue NAME`: the durable queue (default `agents`). */
  readonly queue: string | undefined;
  /** `--concurrency N`: the most runs this worker takes at once. */
  readonly concurrency: number | undefined;
}

const PROVIDERS = ['fake', 'anthropic', 'openai'] as const;
/** The providers `mh` can drive. */
export type ProviderName = (typeof PROVIDERS)[number];
const APIS = ['chat', 'responses'] as const;
const GRANTS = ['write', 'exec'] as const;

/** Splits a command line on whitespace, honouring single and double quotes. */
export function splitCommand(line: string): string[] {
  const words: string[] = [];
  for (const match of line.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g))
    words.push(match[1] ?? match[2] ?? match[3] ?? '');
  return words;
}

function parseMcp(spec: string): CliOptions['mcp'][number] {
  const match = spec.match(/^([a-zA-Z0-9_-]{1,32})=(.+)$/s);
  if (!match)
    throw new UsageError(
      `--mcp expects NAME=COMMAND or NAME=URL (e.g. fs="npx -y @modelcontextprotocol/server-filesystem ."), got '${spec}'`,
    );
  const name = match[1] ?? '';
  // Tools are registered as NAME__TOOL: with '__' in NAME (or a final '_' before the '__'), where
  // the server's name ends would be ambiguous, and two servers' tools could share a name.
  if (name.includes('__') || name.endsWith('_'))
    throw new UsageError(
      `--mcp ${name}: NAME may not contain '__' or end with '_' (tools are named NAME__TOOL: a__b__c could be server a, tool b__c)`,
    );
  const [command, ...args] = splitCommand(match[2] ?? '');
  if (!command) throw new UsageError(`--mcp ${name}: the command is empty`);
  if (/^https?:\/\//i.test(command)) {
    if (args.length > 0 || !URL.canParse(command))
      throw new UsageError(
        `--mcp ${name}: expected one http:// or https:// URL, got '${match[2]}'`,
      );
    return { name, url: command };
  }
  return { name, command, args };
}

/** Every `--mcp` value; a NAME given twice would register no tools of its second server. */
function parseMcpServers(specs: readonly string[]): CliOptions['mcp'] {
  const servers = specs.map(parseMcp);
  const names = new Set<string>();
  for (const { name } of servers) {
    if (names.has(name))
      throw new UsageError(`--mcp ${name}: the name is given twice; give each server its own NAME`);
    names.add(name);
  }
  return servers;
}

function positiveInteger(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < 1) {
    throw new UsageError(`--${flag} expects a positive integer, got '${value}'`);
  }
  // Beyond 2^53 - 1 the digits are rounded away: what runs would not be what was typed.
  if (!Number.isSafeInteger(Number(value)))
    throw new UsageError(
      `--${flag} expects a positive integer up to ${Number.MAX_SAFE_INTEGER}, got '${value}'`,
    );
  return Number(value);
}

/** The longest timer Node can arm (2^31 - 1 ms); a longer one fires at once, with a warning. */
const MAX_TIMER_MS = 2_147_483_647;

/** A flag of milliseconds a timer waits: 0 to the longest timer Node can arm. */
function timerMs(flag: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value))
    throw new UsageError(`--${flag} expects an integer >= 0, got '${value}'`);
  if (Number(value) > MAX_TIMER_MS)
    throw new UsageError(
      `--${flag} expects an integer from 0 to ${MAX_TIMER_MS} (ms; the longest timer Node can arm), got '${value}'`,
    );
  return Number(value);
}

/** Parses `argv` (without node and script). Throws `UsageError` on any mistake. */
export function parseCliArgs(argv: readonly string[]): CliOptions {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    // parseArgs explains some mistakes over several lines; the first one says what is wrong.
    const first = (message.split('\n')[0] ?? message).replace(
      /\. To specify a positional argument.*$/,
      '',
    );
    const ambiguous = first.match(/^Option '(--[\w-]+)' argument is ambiguous/);
    if (ambiguous)
      throw new UsageError(
        `${ambiguous[1]}: a value starting with '-' must be written ${ambiguous[1]}=VALUE`,
      );
    throw new UsageError(first.replace(/^Unknown option/, 'unknown option'));
  }
  const { values, positionals } = parsed;
  let provider: CliOptions['provider'];
  if (values.fake) provider = 'fake';
  if (values.provider !== undefined) {
    if (!(PROVIDERS as readonly string[]).includes(values.provider)) {
      throw new UsageError(
        `--provider expects one of ${PROVIDERS.join(', ')}, got '${values.provider}'`,
      );
    }
    if (values.fake && values.provider !== 'fake') {
      throw new UsageError(`--fake and --provider ${values.provider} contradict each other`);
    }
    provider = values.provider as ProviderName;
  }
  if (values.api !== undefined && !(APIS as readonly string[]).includes(values.api)) {
    throw new UsageError(`--api expects chat or responses, got '${values.api}'`);
  }
  if (values.api !== undefined && provider !== 'openai') {
    throw new UsageError('--api applies to --provider openai only');
  }
  if (values['base-url'] !== undefined) {
    if (provider === 'fake' || provider === undefined)
      throw new UsageError('--base-url needs --provider anthropic or openai');
    if (!URL.canParse(values['base-url']))
      throw new UsageError(`--base-url expects a URL, got '${values['base-url']}'`);
  }
  const grants = (values.grant ?? [])
    .flatMap((grant) => grant.split(','))
    .map((grant) => grant.trim());
  for (const grant of grants) {
    if (!(GRANTS as readonly string[]).includes(grant)) {
      throw new UsageError(`--grant expects write or exec, got '${grant}'`);
    }
  }
  if (values.model !== undefined && values.model.trim() === '')
    throw new UsageError('--model expects a model id');
  const subcommand = positionals[0] === 'worker' && (argv[0] === 'worker' || argv[1] === 'worker');
  if (subcommand && positionals.length > 1)
    throw new UsageError(
      'mh worker takes no prompt: runs come from the queue (mh --enqueue PROMPT)',
    );
  if (positionals.length > 1) {
    throw new UsageError(
      `expected one prompt, got ${positionals.length} arguments (quote the prompt)`,
    );
  }
  if (values.session !== undefined && values.db === undefined) {
    throw new UsageError('--session needs --db PATH|URL (the session database)');
  }
  if (values['list-sessions'] && values.db === undefined)
    throw new UsageError('--list-sessions needs --db PATH|URL');
  if (values.session !== undefined && !/^[\w.:-]{1,128}$/.test(values.session)) {
    throw new UsageError(
      `--session expects letters, digits, '.', ':', '_' or '-', got '${values.session}'`,
    );
  }
  // The window only sets when compaction starts (nothing else reads it), so with compaction off
  // it would be accepted and do nothing.
  if (values['context-window'] !== undefined && values['no-compaction'])
    throw new UsageError(
      '--context-window and --no-compaction exclude each other: the window only sets when compaction starts',
    );
  if (values.record !== undefined && values.replay !== undefined)
    throw new UsageError('--record and --replay exclude each other');
  if (values['mcp-timeout-ms'] !== undefined && (values.mcp ?? []).length === 0)
    throw new UsageError('--mcp-timeout-ms needs an --mcp server to apply to');
  for (const flag of ['record', 'replay'] as const) {
    if (values[flag] !== undefined && values[flag].trim() === '')
      throw new UsageError(`--${flag} expects a cassette file path`);
  }
  const { decisions, flags: decisionFlags } = decisionsOf(values.approve ?? [], values.deny ?? [], {
    text: values.answer ?? [],
    json: values['answer-json'] ?? [],
  });
  const worker = positionals[0] === 'worker' && (argv[0] === 'worker' || argv[1] === 'worker');
  checkDurable(values, worker, positionals.length);
  if (decisions.length > 0 && values.session === undefined && values.workflow === undefined)
    throw new UsageError(
      `${decisionFlags.values().next().value ?? '--approve'}: needs --db PATH --session ID (the session whose calls wait)`,
    );
  const prompt = worker ? undefined : positionals[0];
  if (prompt !== undefined && prompt.trim() === '') throw new UsageError('the prompt is empty');
  refuseListingConflicts(values, prompt);
  return {
    help: values.help ?? false,
    version: values.version ?? false,
    provider,
    baseURL: values['base-url'],
    api: values.api as CliOptions['api'],
    model: values.model,
    system: values.system,
    maxTurns: positiveInteger('max-turns', values['max-turns']),
    timeoutMs: positiveInteger('timeout-ms', values['timeout-ms']),
    maxOutputTokens: positiveInteger('max-output-tokens', values['max-output-tokens']),
    contextWindow: contextWindowOf(values['context-window']),
    compaction: !(values['no-compaction'] ?? false),
    root: values.root ?? process.cwd(),
    grants: grants as ('write' | 'exec')[],
    fakeDelayMs: timerMs('fake-delay-ms', values['fake-delay-ms'], 0),
    db: values.db,
    session: values.session,
    listSessions: values['list-sessions'] ?? false,
    trace: values.trace ?? false,
    mcp: parseMcpServers(values.mcp ?? []),
    listTools: values['list-tools'] ?? false,
    mcpTimeoutMs: positiveInteger('mcp-timeout-ms', values['mcp-timeout-ms']),
    record: values.record,
    replay: values.replay,
    decisions,
    decisionFlags,
    prompt,
    worker,
    enqueue: values.enqueue,
    workflow: values.workflow,
    queue: values.queue,
    concurrency: positiveInteger('concurrency', values.concurrency),
  };
}

/** The flags that shape an agent: a durable run's come from its worker. */
const AGENT_FLAGS = [
  'fake',
  'provider',
  'base-url',
  'api',
  'model',
  'system',
  'max-turns',
  'timeout-ms',
  'max-output-tokens',
  'context-window',
  'no-compaction',
  'root',
  'grant',
  'fake-delay-ms',
  'mcp',
  'mcp-timeout-ms',
] as const;

/** The flags of durable runs (`mh worker`, `--enqueue`, `--workflow`) and what they exclude. */
function checkDurable(
  values: ReturnType<typeof parse>['values'],
  worker: boolean,
  positionals: number,
): void {
  const durable = worker
    ? 'worker'
    : values.enqueue !== undefined
      ? '--enqueue'
      : values.workflow !== undefined
        ? '--workflow'
        : undefined;
  if (durable === undefined) {
    if (values.queue !== undefined)
      throw new UsageError('--queue applies to mh worker and --enqueue only');
    if (values.concurrency !== undefined)
      throw new UsageError('--concurrency applies to mh worker only');
    return;
  }
  if (worker && (values.enqueue !== undefined || values.workflow !== undefined))
    throw new UsageError(
      `mh worker and --${values.enqueue !== undefined ? 'enqueue' : 'workflow'} exclude each other: enqueue from another mh`,
    );
  if (!worker) {
    // The run is the workers': these would shape an agent this mh never builds.
    const shaping = AGENT_FLAGS.find((flag) => values[flag] !== undefined);
    if (shaping)
      throw new UsageError(
        `${durable} runs on the workers' agent: give --${shaping} to mh worker, not here`,
      );
    if (values.workflow !== undefined && values.session !== undefined)
      throw new UsageError('--workflow names the run, which names its session: drop --session');
  }
  if (values.db === undefined || !/^postgres(ql)?:\/\//i.test(values.db))
    throw new UsageError(
      `${durable} needs --db postgres://… (durable runs live in PostgreSQL, shared by the workers)`,
    );
  if (worker && positionals > 1)
    throw new UsageError('mh worker takes no prompt: runs come from the queue');
  if (!worker && positionals > 0)
    throw new UsageError(
      `${durable} and a prompt exclude each other (--enqueue PROMPT is the prompt)`,
    );
  if (values.enqueue !== undefined && values.enqueue.trim() === '')
    throw new UsageError('--enqueue expects a prompt');
  if (values.enqueue !== undefined && values.workflow !== undefined)
    throw new UsageError('--enqueue starts a new run; --workflow follows an existing one');
  if (values.concurrency !== undefined && !worker)
    throw new UsageError('--concurrency applies to mh worker only');
  if (worker && values['timeout-ms'] !== undefined)
    throw new UsageError(
      "mh worker takes no --timeout-ms: a durable run's replay would time out at another point",
    );
  if (worker && !values.fake && values.provider === undefined)
    throw new UsageError('mh worker needs a model provider: --fake, or --provider NAME');
  const excluded = (
    [
      ['record', values.record],
      ['replay', values.replay],
      ['list-sessions', values['list-sessions']],
      ['list-tools', values['list-tools']],
      ['trace', values.trace],
      ...(worker
        ? [
            ['session', values.session],
            ['approve', values.approve],
            ['deny', values.deny],
          ]
        : []),
    ] as const
  ).find(([, value]) => value !== undefined && value !== false);
  if (excluded) throw new UsageError(`${durable} and --${excluded[0]} exclude each other`);
}

/** The smallest window `--context-window` accepts (compaction needs room for a summary). */
const MIN_CONTEXT_WINDOW = 1_000;

/**
 * The largest window `--context-window` accepts. The largest windows models offer are 1 to 10
 * million tokens (Llama 4 Scout: 10M), so anything larger is a typo (a zero too many), and such
 * a window would never start compaction.
 */
const MAX_CONTEXT_WINDOW = 10_000_000;

function contextWindowOf(value: string | undefined): number | undefined {
  // Checked on the digits: a number past 2^53 is not even held exactly.
  if (value !== undefined && /^\d+$/.test(value) && Number(value) > MAX_CONTEXT_WINDOW)
    throw new UsageError(
      `--context-window must be at most ${MAX_CONTEXT_WINDOW} tokens (no model has a larger window), got ${value}`,
    );
  const window = positiveInteger('context-window', value);
  if (window !== undefined && window < MIN_CONTEXT_WINDOW)
    throw new UsageError(
      `--context-window must be at least ${MIN_CONTEXT_WINDOW} tokens, got ${window}`,
    );
  return window;
}

function parse(argv: readonly string[]) {
  // `pnpm mh -- --fake …` passes its separator on; with nothing before it, it ends no options.
  const args = argv[0] === '--' ? argv.slice(1) : argv;
  return parseArgs({
    args: [...args],
    strict: true,
    allowPositionals: true,
    options: {
      help: { type: 'boolean', short: 'h' },
      version: { type: 'boolean', short: 'v' },
      fake: { type: 'boolean' },
      provider: { type: 'string' },
      'base-url': { type: 'string' },
      api: { type: 'string' },
      model: { type: 'string', short: 'm' },
      system: { type: 'string' },
      'max-turns': { type: 'string' },
      'timeout-ms': { type: 'string' },
      'max-output-tokens': { type: 'string' },
      'context-window': { type: 'string' },
      'no-compaction': { type: 'boolean' },
      root: { type: 'string' },
      grant: { type: 'string', multiple: true },
      'fake-delay-ms': { type: 'string' },
      db: { type: 'string' },
      session: { type: 'string' },
      'list-sessions': { type: 'boolean' },
      trace: { type: 'boolean' },
      mcp: { type: 'string', multiple: true },
      'list-tools': { type: 'boolean' },
      'mcp-timeout-ms': { type: 'string' },
      record: { type: 'string' },
      replay: { type: 'string' },
      approve: { type: 'string', multiple: true },
      deny: { type: 'string', multiple: true },
      answer: { type: 'string', multiple: true },
      'answer-json': { type: 'string', multiple: true },
      enqueue: { type: 'string' },
      workflow: { type: 'string' },
      queue: { type: 'string' },
      concurrency: { type: 'string' },
    },
  });
}
