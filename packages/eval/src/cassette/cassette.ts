import { existsSync } from 'node:fs';
import {
  type Clock,
  ConfigError,
  type Provider,
  type RunResult,
  systemClock,
  type ToolExecutor,
} from '@mh/core';
import { RecordingProvider } from '../recording/provider.js';
import { createScrubber, type Scrubber } from '../recording/scrub.js';
import { RecordingToolExecutor } from '../recording/tool-executor.js';
import type { DriftFinding } from '../replay/drift.js';
import { ReplayProvider } from '../replay/provider.js';
import { ReplayToolExecutor } from '../replay/tool-executor.js';
import type { KeyContext } from './context.js';
import {
  CASSETTE_FORMAT,
  CASSETTE_VERSION,
  type CassetteHeader,
  type CassetteKey,
  type CassetteMode,
  describeKey,
  keyId,
  type RequestEntry,
  type ToolEntry,
} from './format.js';
import { type CassetteOptions, checkKey, checkOptions } from './options.js';
import { loadCassette, type ParsedCassette } from './reader.js';
import { CassetteWriter } from './writer.js';

/** What `close()` reports. */
export interface CassetteSummary {
  /** Every drift found, unconsumed requests and tool calls included. */
  readonly drifts: readonly DriftFinding[];
  /** Every warning given. */
  readonly warnings: readonly string[];
}

const highResolutionClock: Clock = {
  now: (): number => performance.now(),
  sleep: systemClock.sleep,
};

/** The recorders or replayers of one key. */
interface KeySlot {
  readonly context: KeyContext;
  provider?: RecordingProvider | ReplayProvider;
  tools?: RecordingToolExecutor | ReplayToolExecutor;
}

/**
 * One cassette file, open for recording or replaying. Hands out a provider and a tool executor
 * per (case, repeat) — many runs may record into one cassette at once — and collects drift
 * findings and warnings. Close it when the runs are done.
 */
export class Cassette {
  /** The file. */
  readonly path: string;
  /** The mode it was opened in. */
  readonly mode: CassetteMode;
  /** Its header (the one written, when recording). */
  readonly header: CassetteHeader;
  readonly #options: CassetteOptions;
  readonly #parsed: ParsedCassette | undefined;
  readonly #scrub: Scrubber;
  readonly #slots = new Map<string, KeySlot>();
  readonly #drifts: DriftFinding[] = [];
  readonly #warnings: string[] = [];
  #writer: CassetteWriter | undefined;
  #closed = false;

  /** @internal Use `openCassette`. */
  constructor(
    path: string,
    options: CassetteOptions,
    header: CassetteHeader,
    parsed: ParsedCassette | undefined,
    writer: CassetteWriter | undefined,
    scrub: Scrubber,
    warnings: readonly string[],
  ) {
    this.path = path;
    this.mode = options.mode;
    this.header = header;
    this.#options = options;
    this.#parsed = parsed;
    this.#writer = writer;
    this.#scrub = scrub;
    for (const warning of warnings) {
      this.#warnings.push(warning);
      options.onWarning?.(warning);
    }
  }

  /** Every drift found so far, in order. */
  get drifts(): readonly DriftFinding[] {
    return this.#drifts.slice();
  }

  /** Every warning so far. */
  get warnings(): readonly string[] {
    return this.#warnings.slice();
  }

  /** The keys recorded in the file (replay modes) or opened so far (record). */
  keys(): CassetteKey[] {
    const ids = new Set([
      ...(this.#parsed?.requests.keys() ?? []),
      ...(this.#parsed?.tools.keys() ?? []),
      ...this.#slots.keys(),
    ]);
    return [...ids].map((id) => {
      const [caseId, repeat] = JSON.parse(id) as [string, number];
      return { case: caseId, repeat };
    });
  }

  /**
   * The provider of one (case, repeat): in `record` mode a `RecordingProvider` around `inner`
   * (required); in `replay` and `lockdown` a `ReplayProvider` (`inner` optional: in `replay` it
   * answers requests beyond the recording; in `lockdown` it is never called). One per key.
   */
  provider(inner: Provider | undefined, key: CassetteKey): RecordingProvider | ReplayProvider {
    const slot = this.#slot(key, 'provider');
    if (inner !== undefined && typeof inner?.stream !== 'function')
      throw new ConfigError('inner', 'expected a Provider (with stream())');
    if (this.mode === 'record') {
      if (inner === undefined)
        throw new ConfigError('inner', 'recording needs the provider to record');
      slot.provider = new RecordingProvider(inner, slot.context);
    } else {
      const recordedName = this.header.meta.provider;
      const name = inner?.name ?? (typeof recordedName === 'string' ? recordedName : 'replay');
      slot.provider = new ReplayProvider(inner, slot.context, name);
    }
    return slot.provider;
  }

  /**
   * The tool executor of one (case, repeat) around `inner`, which advertises the tools: in
   * `record` mode it records each outcome; in `replay` and `lockdown` it serves recorded results
   * and never runs a recorded call. One per key.
   */
  tools(inner: ToolExecutor, key: CassetteKey): RecordingToolExecutor | ReplayToolExecutor {
    const slot = this.#slot(key, 'tools');
    if (typeof inner?.execute !== 'function' || typeof inner?.specs !== 'function')
      throw new ConfigError('inner', 'expected a ToolExecutor (with specs() and execute())');
    slot.tools =
      this.mode === 'record'
        ? new RecordingToolExecutor(inner, slot.context)
        : new ReplayToolExecutor(inner, slot.context);
    return slot.tools;
  }

  /**
   * A run's result as the replay of `key` must report it: in a strict replay, a run that stopped
   * (a guard, a failure) where the recording went on with the same run ends with the
   * `ReplayDriftError` of its `unconsumed-requests` finding (`ReplayProvider.settle`); any other
   * result is returned as is. An Agent given `provider(…, key)` gets this from its loop
   * (`Provider.settle`; `withRetry` and durable steps pass it on); call it for a run whose
   * provider is wrapped by something that does not (or use `settleReplayedRuns`).
   */
  settle(key: CassetteKey, result: RunResult): RunResult {
    const provider = this.#slots.get(keyId(key))?.provider;
    return provider instanceof ReplayProvider ? provider.settle(result) : result;
  }

  /**
   * Ends every replay (adding unconsumed requests and tool calls to the findings) and closes the
   * file. Throws the first write failure, if a line could not be recorded. Idempotent.
   */
  async close(): Promise<CassetteSummary> {
    if (!this.#closed) {
      this.#closed = true;
      for (const slot of this.#slots.values()) {
        if (slot.provider instanceof ReplayProvider) slot.provider.finish();
        if (slot.tools instanceof ReplayToolExecutor) slot.tools.finish();
      }
      this.#writer?.close();
    }
    return { drifts: this.drifts, warnings: this.warnings };
  }

  #slot(key: CassetteKey, role: 'provider' | 'tools'): KeySlot {
    if (this.#closed) throw new ConfigError('cassette', `${this.path} is closed`);
    checkKey(key);
    const id = keyId(key);
    let slot = this.#slots.get(id);
    if (slot === undefined) {
      slot = { context: this.#context(key, id) };
      this.#slots.set(id, slot);
    }
    // Appending records new keys only: a key the file holds stays as it was recorded.
    if (this.mode === 'record' && slot[role] === undefined && this.#recorded(id))
      throw new ConfigError(
        'key',
        `${describeKey(key)} is already recorded in ${this.path} (appending records new keys only)`,
      );
    if (slot[role] !== undefined)
      throw new ConfigError(
        'key',
        `${describeKey(key)} already has a ${role === 'provider' ? 'provider' : 'tool executor'} in this cassette (one per key; open the cassette again to replay it twice)`,
      );
    return slot;
  }

  /** Whether the file held `id` when it was opened. */
  #recorded(id: string): boolean {
    return this.#parsed?.requests.has(id) === true || this.#parsed?.tools.has(id) === true;
  }

  #context(key: CassetteKey, id: string): KeyContext {
    // A key recording anew starts empty (its file may hold other keys: appending).
    const parsed = this.mode === 'record' ? undefined : this.#parsed;
    const requests = parsed?.requests.get(id) ?? new Map<number, RequestEntry>();
    const tools: readonly ToolEntry[] = parsed?.tools.get(id) ?? [];
    const lastTool = tools[tools.length - 1];
    return {
      key: { case: key.case, repeat: key.repeat },
      mode: this.mode,
      strict: this.#options.strict ?? true,
      timing: this.#options.timing ?? 'none',
      toolModes: this.#options.toolModes ?? {},
      clock: this.#options.clock ?? highResolutionClock,
      requests,
      tools,
      state: { requests: 0, toolCalls: lastTool === undefined ? 0 : lastTool.index + 1 },
      scrubber: this.#scrub,
      write: (line: string): void => this.#write(line),
      comparable: (value: unknown): unknown => {
        const json = JSON.stringify(value);
        if (json === undefined) return value;
        const scrubbed = this.#scrub.json(json);
        return scrubbed === json ? value : JSON.parse(scrubbed);
      },
      report: (finding: DriftFinding): void => {
        this.#drifts.push(finding);
      },
    };
  }

  #write(line: string): void {
    if (this.#writer === undefined) {
      // Replay mode records what fell through to the inner provider: open for appending now.
      if (this.#parsed === undefined || this.#closed)
        throw new ConfigError('cassette', `${this.path} is closed`);
      this.#writer = CassetteWriter.append(this.path, this.#parsed, this.#scrub);
    }
    this.#writer.write(line);
  }
}

/**
 * Opens a cassette: in `record` mode creates the file and writes its header (refusing an
 * existing file unless `overwrite`, or adding new keys to it with `append`); in `replay` and
 * `lockdown` reads and checks it.
 * @example
 * const cassette = await openCassette('suite.cassette.jsonl', { mode: 'lockdown' });
 * const provider = cassette.provider(undefined, { case: 'refund', repeat: 0 });
 * const result = await new Agent({ provider, model: 'claude-sonnet-4-5' }).run('Refund A-1');
 * const { drifts } = await cassette.close();
 */
export async function openCassette(path: string, options: CassetteOptions): Promise<Cassette> {
  checkOptions(path, options);
  const scrub = createScrubber(options.secrets ?? [], process.env);
  if (options.mode === 'record' && options.append === true && existsSync(path)) {
    const parsed = loadCassette(path);
    const writer = CassetteWriter.append(path, parsed, scrub);
    return new Cassette(path, options, parsed.header, parsed, writer, scrub, parsed.warnings);
  }
  if (options.mode === 'record') {
    const header: CassetteHeader = {
      type: 'header',
      format: CASSETTE_FORMAT,
      version: CASSETTE_VERSION,
      createdAt: new Date().toISOString(),
      meta: options.meta ?? {},
    };
    const writer = CassetteWriter.create(path, JSON.stringify(header), {
      overwrite: options.overwrite ?? false,
      scrub,
    });
    return new Cassette(path, options, header, undefined, writer, scrub, []);
  }
  const parsed = loadCassette(path);
  const warnings = [...parsed.warnings];
  const createdAt = Date.parse(parsed.header.createdAt);
  if (options.maxAgeMs !== undefined && Number.isFinite(createdAt)) {
    const ageMs = Date.now() - createdAt;
    if (ageMs > options.maxAgeMs)
      warnings.push(
        `${path}: recorded ${(ageMs / 86_400_000).toFixed(1)} day(s) ago (${parsed.header.createdAt}), older than maxAgeMs; consider recording again`,
      );
  }
  return new Cassette(path, options, parsed.header, parsed, undefined, scrub, warnings);
}
