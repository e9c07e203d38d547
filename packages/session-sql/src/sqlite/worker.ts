import { receiveMessageOnPort, parentPort as thePort } from 'node:worker_threads';
import { HarnessError } from '@mh/core';
import type { Kysely } from 'kysely';
import type { PreparedTurn } from '../commit-turn.js';
import type { StoreDatabase } from '../store-database.js';
import { isWriteOp, runOp, type StoreOp } from '../store-ops.js';
import { openSqliteBackend, type SqliteBackend } from './backend.js';
import { sendError } from './sent-error.js';
import type { ThreadReply, ThreadRequest, ThreadSetup } from './thread.js';

// A thread that owns one store's SQLite connection at a time (see `thread.ts`); when that
// store closes, the thread waits for the next one to open, so opening a store does not pay for
// starting a thread and loading its modules again. Requests are served in the order they arrive.
// Writes that arrive while the thread is busy (another write's fsync) wait in its message queue;
// the next turn takes every consecutive write waiting there as one batch: one transaction, one
// savepoint per write, one fsync (group commit). After answering, the thread keeps taking
// messages for the store's `lingerMs` before it goes back to its event loop to sleep: a caller's
// next call often comes within a fraction of a millisecond (an Agent's step makes three writes
// with little work between them), and waking a sleeping thread costs more than that wait. It
// lingers only while calls come that close together (see `lastGapMs`).

/** At most this many writes share one transaction, so one batch cannot hold the lock for long. */
const MAX_BATCH = 256;

if (thePort === null) throw new HarnessError('sqlite/worker.js runs only as a worker thread');
const port = thePort;

const reply = (message: ThreadReply): void => port.postMessage(message);

/** Answers request `id`; a value that cannot cross (never expected) fails it instead of hanging. */
function settle(id: number, outcome: { ok: true; value: unknown } | { ok: false; error: unknown }) {
  try {
    reply(
      outcome.ok
        ? { type: 'done', id, value: outcome.value }
        : { type: 'failed', id, error: sendError(outcome.error) },
    );
  } catch (error) {
    reply({ type: 'failed', id, error: sendError(error) });
  }
}

/** `onQuery` of the caller's thread, kept in step: this thread waits until it has returned. */
function queryReporter(flag: SharedArrayBuffer): (sql: string) => void {
  const cell = new Int32Array(flag);
  return (sql) => {
    reply({ type: 'query', sql });
    Atomics.wait(cell, 0, 0);
    const verdict = Atomics.exchange(cell, 0, 0);
    if (verdict === 2) throw new HarnessError(`onQuery threw on: ${sql}`);
  };
}

const asBuffer = (bytes: Uint8Array): Buffer =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

/** A prepared turn as it crossed to this thread, with its Buffers back. */
const revived = (prepared: PreparedTurn): PreparedTurn => ({
  ...prepared,
  id: asBuffer(prepared.id),
  messages: prepared.messages.map((message) => ({ ...message, hash: asBuffer(message.hash) })),
});

/** A structured clone turns a Buffer into a plain Uint8Array: the store logic needs Buffers. */
function reviveArgs(op: StoreOp, args: unknown): unknown {
  if (op === 'commit') {
    const { prepared, now } = args as { prepared: PreparedTurn; now: number };
    return { now, prepared: revived(prepared) };
  }
  if (op === 'commitMany') {
    const { prepared, now } = args as { prepared: readonly PreparedTurn[]; now: number };
    return { now, prepared: prepared.map(revived) };
  }
  return args;
}

let backend: SqliteBackend | undefined;
/** The open store's `lingerMs` (0 while no store is open: an idle pooled thread just sleeps). */
let lingerMs = 0;

function openBackend(): SqliteBackend {
  if (backend === undefined) throw new HarnessError('no session store is open on this thread');
  return backend;
}

/** Runs a request that is not a write of a batch, and answers it. */
async function serveOne(request: ThreadRequest): Promise<void> {
  try {
    let value: unknown;
    if (request.op === 'open') {
      if (backend !== undefined) throw new HarnessError('a session store is already open here');
      const setup = request.args as ThreadSetup;
      const onQuery = setup.queryFlag === undefined ? undefined : queryReporter(setup.queryFlag);
      backend = await openSqliteBackend(setup.path, setup.busyTimeoutMs, onQuery);
      lingerMs = setup.lingerMs;
    } else if (request.op === 'close') {
      const closing = backend;
      backend = undefined;
      lingerMs = 0;
      await closing?.close();
    } else if (request.op === 'reclaimSpace') {
      await openBackend().reclaimSpace();
    } else if (request.op === 'durability') {
      value = openBackend().durability();
    } else {
      const op = request.op;
      const backend = openBackend();
      value = await backend.read((db) => runOp(db, op, request.args as never, backend));
    }
    settle(request.id, { ok: true, value });
  } catch (error) {
    settle(request.id, { ok: false, error });
  }
}

async function serveWrites(batch: readonly ThreadRequest[]): Promise<void> {
  let settled: Awaited<ReturnType<SqliteBackend['writeBatch']>>;
  try {
    const backend = openBackend();
    const works = batch.map((request) => {
      const op = request.op as StoreOp;
      const args = reviveArgs(op, request.args);
      return (db: Kysely<StoreDatabase>) => runOp(db, op, args as never, backend);
    });
    settled = await backend.writeBatch(works);
  } catch (error) {
    settled = batch.map(() => ({ ok: false, error }));
  }
  for (const [index, request] of batch.entries()) {
    const outcome = settled[index];
    if (outcome) settle(request.id, outcome);
  }
}

const queue: ThreadRequest[] = [];
let serving = false;

function take(): void {
  for (let next = receiveMessageOnPort(port); next; next = receiveMessageOnPort(port)) {
    queue.push(next.message as ThreadRequest);
  }
}

/** When this thread last ran out of calls (`performance.now()`). */
let idleSince = 0;
/**
 * How long the last call came after the one before was answered, in ms. The thread lingers only
 * while that is within `lingerMs`: calls seconds apart (a real model between writes) or just
 * further apart than the window would make it spin for nothing.
 */
let lastGapMs = Number.POSITIVE_INFINITY;

/** Takes the messages that arrive within `lingerMs` of running out, returning at the first. */
function linger(): void {
  idleSince = performance.now();
  if (lingerMs <= 0 || lastGapMs > lingerMs) return;
  const until = idleSince + lingerMs;
  do take();
  while (queue.length === 0 && performance.now() < until);
  if (queue.length > 0) lastGapMs = performance.now() - idleSince;
}

async function drain(): Promise<void> {
  take();
  while (queue.length > 0) {
    const first = queue[0] as ThreadRequest;
    if (isWriteOp(first.op)) {
      let end = 1;
      while (end < queue.length && end < MAX_BATCH && isWriteOp((queue[end] as ThreadRequest).op)) {
        end += 1;
      }
      await serveWrites(queue.splice(0, end));
    } else {
      queue.shift();
      await serveOne(first);
    }
    take();
    if (queue.length === 0) linger();
  }
  serving = false;
}

port.on('message', (request: ThreadRequest) => {
  queue.push(request);
  if (serving) return;
  serving = true;
  // Woken from sleep: the call came this long after the last answer.
  lastGapMs = performance.now() - idleSince;
  // `drain` first takes every message already waiting (receiveMessageOnPort), so the writes sent
  // together form one batch without waiting for another turn of this thread's event loop.
  void drain();
});
