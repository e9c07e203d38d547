import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { HarnessError, SessionStoreUnavailableError } from '@mh/core';
import {
  isWriteOp,
  type OpArgs,
  type OpResult,
  type StoreOp,
  type StoreRunner,
} from '../store-ops.js';
import type { SqliteDurability } from './backend.js';
import { receiveError, type SentError } from './sent-error.js';

// better-sqlite3 is synchronous: a commit at `synchronous = FULL` blocks its thread for the fsync,
// and a write waiting for another connection's lock sleeps it. On the caller's thread that stalls
// every agent, timer and socket of the process. So a SQLite store's connection lives on a thread
// of its own (`worker.ts`): the caller's thread only validates, hashes and posts.

/** What a store is opened with on its thread. */
export interface ThreadSetup {
  readonly path: string;
  readonly busyTimeoutMs: number;
  /** How long the thread keeps taking messages after an answer before it sleeps (ms). */
  readonly lingerMs: number;
  /** Present when the caller gave `onQuery`: one Int32 the thread waits on after each statement. */
  readonly queryFlag: SharedArrayBuffer | undefined;
}

/** A call sent to the SQLite thread. */
export interface ThreadRequest {
  readonly id: number;
  readonly op: StoreOp | 'open' | 'durability' | 'reclaimSpace' | 'close';
  readonly args: unknown;
}

/** What the SQLite thread sends back. */
export type ThreadReply =
  | { readonly type: 'query'; readonly sql: string }
  | { readonly type: 'done'; readonly id: number; readonly value: unknown }
  | { readonly type: 'failed'; readonly id: number; readonly error: SentError };

interface Pending {
  readonly op: ThreadRequest['op'];
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * The built worker script. From source (the workspace's tests resolve packages to `src/*.ts`),
 * the built one of this package: a worker thread runs JavaScript only.
 */
function workerScript(): URL {
  const here = import.meta.url;
  const url = new URL(here.endsWith('.ts') ? '../../dist/sqlite/worker.js' : './worker.js', here);
  if (!existsSync(fileURLToPath(url))) {
    throw new HarnessError(
      `@mh/session-sql: ${fileURLToPath(url)} is missing; build the package first (pnpm build)`,
    );
  }
  return url;
}

/**
 * The Node options the worker runs with: this process's `--conditions` (how its packages resolve)
 * but none other — options such as `--input-type` or `--eval` are refused in a worker, and the
 * worker is built JavaScript that needs no loader — and without the workspace's `@mh/source`
 * condition, under which its tests resolve packages to TypeScript sources.
 */
function workerExecArgv(): string[] {
  const kept: string[] = [];
  const argv = process.execArgv;
  for (let index = 0; index < argv.length; index++) {
    const option = argv[index] as string;
    const split = /^(--conditions|-C)=(.*)$/.exec(option);
    const condition = split
      ? split[2]
      : option === '--conditions' || option === '-C'
        ? argv[++index]
        : undefined;
    if (condition !== undefined && condition !== '@mh/source') {
      kept.push(`--conditions=${condition}`);
    }
  }
  return kept;
}

/** Threads left by closed stores, waiting for the next store to open. */
const idle: PooledWorker[] = [];
/** How many idle threads are kept: one covers a program that closes a store and opens another. */
const MAX_IDLE = 1;

/** A worker thread and the store it serves now, if any. */
class PooledWorker {
  readonly worker: Worker;
  owner: SqliteThread | undefined;
  ended: string | undefined;

  constructor() {
    this.worker = new Worker(workerScript(), { execArgv: workerExecArgv() });
    this.worker.on('message', (reply: ThreadReply) => this.owner?.receive(reply));
    this.worker.on('error', (error) => {
      this.ended ??= error instanceof Error ? error.message : String(error);
    });
    this.worker.once('exit', (code) => {
      this.ended ??= `it exited with code ${code}`;
      const at = idle.indexOf(this);
      if (at >= 0) idle.splice(at, 1);
      this.owner?.stopped(this.ended);
    });
    // Idle, a thread does not keep the process alive (a connection on this thread would not).
    this.worker.unref();
  }
}

/**
 * The store's operations, run on the thread that owns its SQLite connection. Calls resolve once
 * the thread has committed them (a write is on disk before its promise resolves). The thread
 * keeps the process alive only while a call is in flight, as the connection on this thread did.
 */
export class SqliteThread implements StoreRunner {
  readonly #pooled: PooledWorker;
  readonly #path: string;
  readonly #onQuery: ((sql: string) => void) | undefined;
  readonly #queryCell: Int32Array | undefined;
  readonly #pending = new Map<number, Pending>();
  #next = 0;
  #stopped: string | undefined;

  private constructor(
    pooled: PooledWorker,
    path: string,
    onQuery: ((sql: string) => void) | undefined,
    queryFlag: SharedArrayBuffer | undefined,
  ) {
    this.#pooled = pooled;
    this.#path = path;
    this.#onQuery = onQuery;
    this.#queryCell = queryFlag === undefined ? undefined : new Int32Array(queryFlag);
  }

  /**
   * Opens `path` (creating or migrating it) on a thread of its own: an idle one a closed store
   * left, or a new one. Rejects with the opening's typed error (`SessionFileError`,
   * `SessionStoreBusyError`, …).
   */
  static async start(
    path: string,
    timing: { readonly busyTimeoutMs: number; readonly lingerMs: number },
    onQuery: ((sql: string) => void) | undefined,
  ): Promise<SqliteThread> {
    const queryFlag = onQuery === undefined ? undefined : new SharedArrayBuffer(4);
    const pooled = idle.pop() ?? new PooledWorker();
    const thread = new SqliteThread(pooled, path, onQuery, queryFlag);
    pooled.owner = thread;
    const setup: ThreadSetup = { path, ...timing, queryFlag };
    try {
      await thread.#send('open', setup);
    } catch (error) {
      thread.#release();
      throw error;
    }
    return thread;
  }

  /** Runs one operation on the thread; writes may share a transaction with concurrent writes. */
  run<K extends StoreOp>(op: K, args: OpArgs<K>): Promise<OpResult<K>> {
    return this.#send(op, args) as Promise<OpResult<K>>;
  }

  /** Hands free pages back to the file system. */
  async reclaimSpace(): Promise<void> {
    await this.#send('reclaimSpace', undefined);
  }

  /** The durability settings of the connection, as SQLite reports them. */
  async durability(): Promise<SqliteDurability> {
    return (await this.#send('durability', undefined)) as SqliteDurability;
  }

  /** Finishes every call sent before, closes the connection and frees the thread. */
  async close(): Promise<void> {
    if (this.#stopped === undefined) await this.#send('close', undefined);
    this.#release();
  }

  /** Gives the thread back to the pool, or ends it when the pool is full or it failed. */
  #release(): void {
    this.#stopped ??= 'the store was closed';
    const pooled = this.#pooled;
    pooled.owner = undefined;
    if (pooled.ended === undefined && idle.length < MAX_IDLE) {
      pooled.worker.unref();
      idle.push(pooled);
    } else {
      void pooled.worker.terminate();
    }
  }

  /** A message from the thread (the pool routes it here while this store owns the thread). */
  receive(reply: ThreadReply): void {
    if (reply.type === 'query') {
      this.#answerQuery(reply.sql);
      return;
    }
    const pending = this.#finish(reply.id);
    if (pending === undefined) return;
    if (reply.type === 'done') pending.resolve(reply.value);
    else pending.reject(receiveError(reply.error));
  }

  /** Calls `onQuery`, then lets the thread run its next statement. */
  #answerQuery(sql: string): void {
    const cell = this.#queryCell;
    if (cell === undefined) return;
    let verdict = 1;
    try {
      this.#onQuery?.(sql);
    } catch {
      verdict = 2;
    }
    Atomics.store(cell, 0, verdict);
    Atomics.notify(cell, 0);
  }

  #send(op: ThreadRequest['op'], args: unknown): Promise<unknown> {
    if (this.#stopped !== undefined) {
      return Promise.reject(
        new SessionStoreUnavailableError(
          'unreachable',
          `The SQLite thread of ${this.#path} stopped (${this.#stopped})`,
        ),
      );
    }
    const id = this.#next++;
    const request: ThreadRequest = { id, op, args };
    const worker = this.#pooled.worker;
    return new Promise((resolve, reject) => {
      // A call in flight keeps the process alive until it is answered.
      if (this.#pending.size === 0) worker.ref();
      this.#pending.set(id, { op, resolve, reject });
      try {
        worker.postMessage(request);
      } catch (error) {
        // An argument that cannot be cloned (never from the store's own calls).
        this.#finish(id);
        reject(error);
      }
    });
  }

  #finish(id: number): Pending | undefined {
    const pending = this.#pending.get(id);
    this.#pending.delete(id);
    if (this.#pending.size === 0) this.#pooled.worker.unref();
    return pending;
  }

  /** The thread ended: every call in flight fails, and so does every later one. */
  stopped(why: string): void {
    this.#stopped ??= why;
    for (const [id, pending] of [...this.#pending]) {
      this.#finish(id);
      if (pending.op === 'close') {
        pending.resolve(undefined);
        continue;
      }
      // A write in flight may have committed before the thread ended.
      const failure = isWriteOp(pending.op) ? 'outcome-unknown' : 'unreachable';
      pending.reject(
        new SessionStoreUnavailableError(
          failure,
          `The SQLite thread of ${this.#path} stopped (${why}) during ${pending.op}`,
        ),
      );
    }
  }
}
