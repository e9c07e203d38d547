// The cost of a SQLite session, as users run it (issue 16, targets 2 and 3). Runs against the
// BUILT packages (the bench task depends on build), on a file in a temp folder (WAL,
// synchronous = FULL: the store's only setting).
//
// 1. `store.commit` alone: the latency of one commit of a two-message turn on a growing branch
//    of a file that held 1,000 turns when it was opened again, median of BENCH_REPEATS runs
//    (default 3). Two figures: the first 60 commits after the open, while SQLite's write-ahead
//    log grows (a short-lived process such as the CLI meets that log), median and p90; and
//    BENCH_COMMITS commits (default 400) from 1,000 after the open on, once every log is written
//    over in place (a long-lived process), median and p99. Floor: raw better-sqlite3 on its own
//    file with the same pragmas, two inserts in one transaction and one fsync per commit, opened
//    and timed the same way. A second floor: the store's own statements for a commit by hand
//    (raw better-sqlite3 on a file with the store's schema), which parts what the schema writes
//    from what the store's code and thread add. Also, settled, a store opened with
//    `lingerMs: 0`, whose thread sleeps after each answer. They take turns of 30 or 50 commits.
// 2. Agent + session per step: one step is `agent.run(prompt)` where the model (claude-sonnet-4-5,
//    the defaults) calls `add` once and then answers, so the prompt is committed, the turn
//    journaled before its tools run, and the tool turn committed with the answer (one write):
//    three durable writes, as `add` only reads (a crash runs it again). Then the same step with
//    a write tool that is not idempotent, `record`, whose call is also claimed before it runs and
//    journaled when it ends: five writes. Ours and the floor take turns of 50 steps, so both meet
//    the disk's same minutes; ×floor is the median of each step's ratio.
//    Per-step ms over steps 1–10, 11–20 and 991–1000 of a 1000-step session
//    (BENCH_STEPS), median of BENCH_REPEATS runs, the median step from step 101 on (the WAL file
//    has grown to its working size by then), and the store calls a step makes. Floor: a
//    hand-written loop over the same scripted model with raw better-sqlite3 making the same
//    writes, each one transaction (one fsync).
//    Then one session of BENCH_LONG_STEPS steps (default 5000; 0 skips it), `add`, ours and the
//    floor: the median step of its first and last 1,000 steps, to show a step stays flat as the
//    conversation grows to 20,000 messages.
//    Then the `add` steps again with the files on a RAM disk (/dev/shm), ours and the floor: the
//    part of the gap that is not the disk.
// 3. Event loop: A agents (1, 10, 100) on one file, sharing one store, each on its own session,
//    all running BENCH_LOOP_STEPS steps (default 20) at once; the model's events each wait for a
//    1 ms timer, as network I/O would. The maximum lateness of a 1 ms interval timer (what a tool
//    or run timeout would see), the p99 of `monitorEventLoopDelay`, and commits per second.
// 4. Commits per second of 1, 10 and 100 writers sharing one store (BENCH_WRITERS), each on its
//    own session, with no model: concurrent writes share transactions (group commit). Floor: raw
//    better-sqlite3, one writer, one fsync per commit.
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { Agent, defineTool, scripted } from '@mh/sdk';
import { openSqliteStore } from '@mh/session-sql';
import Database from 'better-sqlite3';
import { z } from 'zod';
import { add } from './add-tool.mjs';
import { answerCalls, modelTurn, toolSpec } from './floor.mjs';

/** Whether `value` is a positive integer. */
const isCount = (value) => Number.isInteger(value) && value > 0;
/** A BENCH_* count from the environment: a positive integer, or `fallback` when unset. */
function count(name, fallback) {
  const value = Number(process.env[name] ?? fallback);
  if (!isCount(value)) {
    throw new Error(`${name}: expected a positive integer, got ${process.env[name]}`);
  }
  return value;
}
/** A BENCH_* list of counts (`1,10,100`), each checked as `count` checks one. */
function counts(name, fallback) {
  const values = (process.env[name] ?? fallback).split(',').map(Number);
  if (!values.every(isCount)) {
    throw new Error(
      `${name}: expected positive integers separated by commas, got ${process.env[name]}`,
    );
  }
  return values;
}
const COMMITS = count('BENCH_COMMITS', 400);
const REPEATS = count('BENCH_REPEATS', 3);
const STEPS = count('BENCH_STEPS', 1000);
const LOOP_STEPS = count('BENCH_LOOP_STEPS', 20);
// One longer session (0 skips it): where a run's cost would grow with the conversation.
const LONG_STEPS = Number(process.env.BENCH_LONG_STEPS ?? 5000);
if (LONG_STEPS !== 0 && !(Number.isInteger(LONG_STEPS) && LONG_STEPS >= 2100))
  throw new Error(`BENCH_LONG_STEPS: expected 0 or an integer of at least 2100, got ${LONG_STEPS}`);
const AGENTS = counts('BENCH_AGENTS', '1,10,100');
const WRITERS = counts('BENCH_WRITERS', '1,10,100');
// Which of the four parts to run (BENCH_PARTS=1,4 for the store alone), all by default.
const PARTS = new Set(counts('BENCH_PARTS', '1,2,3,4'));
if ([...PARTS].some((part) => part > 4))
  throw new Error(`BENCH_PARTS: expected parts 1 to 4, got ${process.env.BENCH_PARTS}`);
const MODEL = 'claude-sonnet-4-5';
const USAGE = { inputTokens: 100, outputTokens: 10 };

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};
const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};
const fmt = (value, digits = 2) => value.toFixed(digits).padStart(8);

const folder = mkdtempSync(join(tmpdir(), 'mh-session-bench-'));
let files = 0;
const freshPath = () => join(folder, `b${files++}.db`);

/** The same sum, declared as a write that is not idempotent: its call must never run twice. */
const record = defineTool({
  name: 'record',
  description: 'Adds two numbers and records the sum.',
  permission: 'write',
  input: z.object({ a: z.number(), b: z.number() }),
  run: async ({ a, b }) => String(a + b),
});

/**
 * A model that, for every run, calls `add` once and then answers. With `delayMs` each of its
 * events waits for a timer, as a network stream waits for I/O: agents at once then interleave,
 * where an instant model would run each agent's whole step in one go.
 */
function provider(delayMs, tool = 'add') {
  let turn = 0;
  const delay = delayMs === undefined ? {} : { delayMs };
  return scripted(
    [
      () => {
        turn++;
        return turn % 2 === 1
          ? { toolCalls: [{ name: tool, input: { a: turn, b: 1 } }], usage: USAGE, ...delay }
          : { text: `the sum is ${turn + 1}`, usage: USAGE, ...delay };
      },
    ],
    { whenExhausted: 'repeat-last', recordRequests: false },
  );
}

const text = (id, role, value) => ({ id, role, content: [{ type: 'text', text: value }] });

/** Raw better-sqlite3 with the store's pragmas: the floor of a durable commit. */
function rawDatabase(path) {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.exec(
    'create table if not exists turns (seq integer primary key, session text, parent integer, meta text);' +
      'create table if not exists bodies (seq integer primary key, turn integer, body text);' +
      'create table if not exists pending (session text primary key, assistant text, started integer, result text)',
  );
  const turn = db.prepare('insert into turns (session, parent, meta) values (?, ?, ?)');
  const body = db.prepare('insert into bodies (turn, body) values (?, ?)');
  const clear = db.prepare('delete from pending where session = ?');
  // One transaction, one fsync: a checkpoint row and the message bodies of the turn.
  const insert = (session, parent, messages) => {
    const { lastInsertRowid } = turn.run(session, parent, '{}');
    for (const message of messages) body.run(lastInsertRowid, JSON.stringify(message));
    clear.run(session);
    return Number(lastInsertRowid);
  };
  const commit = db.transaction(insert);
  // Several turns, one after the other, in one transaction (a tool turn with the answer).
  const commitMany = db.transaction((session, parent, turns) =>
    turns.reduce((head, messages) => insert(session, head, messages), parent),
  );
  // The journal of a turn's calls, each write its own transaction (one fsync), as the Agent's.
  const journalTurn = db.prepare(
    'insert or replace into pending (session, assistant, started) values (?, ?, 0)',
  );
  const journalStart = db.prepare('update pending set started = 1 where session = ?');
  const journalEnd = db.prepare('update pending set result = ? where session = ?');
  const journal = {
    turn: (session, assistant) => journalTurn.run(session, JSON.stringify(assistant)),
    start: (session) => journalStart.run(session),
    end: (session, result) => journalEnd.run(JSON.stringify(result), session),
  };
  return { db, commit, commitMany, journal };
}

/**
 * A second floor for part 1: the statements the store runs for a commit (`commit-turn.ts`: look
 * up the branch, insert the checkpoint, the bodies and the links, move the head, touch the
 * session), by hand, with raw better-sqlite3 on a file the store made and with its pragmas, bodies
 * hashed as the store hashes them. Between the floor and it lies what the store's schema writes
 * (content addressing, branches, the indexes deletes need: about 13 pages a commit against 2);
 * between it and ours, the store's code and thread.
 */
function schemaDatabase(path) {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  const lookup = db.prepare(
    'select s.seq, b.name, b.head_seq, h.turn as head_turn, t.assistant from sessions s ' +
      'left join branches b on b.session_seq = s.seq and b.name = s.current_branch ' +
      'left join checkpoints h on h.seq = b.head_seq ' +
      'left join pending_turns t on t.session_seq = b.session_seq and t.branch = b.name ' +
      'where s.id = ?',
  );
  const checkpoint = db.prepare(
    'insert into checkpoints (id, session_seq, parent_seq, turn, created_at, meta) ' +
      'values (?, ?, ?, ?, ?, ?) on conflict (id) do nothing returning seq',
  );
  const bodies = db.prepare(
    'insert into messages (hash, codec, body) values (?, 0, ?), (?, 0, ?) ' +
      'on conflict (hash) do nothing returning seq, hash',
  );
  const links = db.prepare(
    'insert into checkpoint_messages (checkpoint_seq, position, message_seq) ' +
      'values (?, 0, ?), (?, 1, ?)',
  );
  const move = db.prepare(
    'update branches set head_seq = ?, updated_at = ? where session_seq = ? and name = ? and head_seq is ?',
  );
  const touch = db.prepare('update sessions set updated_at = ? where seq = ?');
  const sha256 = (bytes) => createHash('sha256').update(bytes).digest();
  const transaction = db.transaction((messages) => {
    const [first, second] = messages.map((message) => Buffer.from(JSON.stringify(message)));
    const [hashA, hashB] = [sha256(first), sha256(second)];
    const branch = lookup.get('s');
    const now = Date.now();
    const id = sha256(Buffer.concat([hashA, hashB, Buffer.from(String(branch.head_seq))]));
    const { seq } = checkpoint.get(
      id,
      branch.seq,
      branch.head_seq,
      (branch.head_turn ?? 0) + 1,
      now,
      '{}',
    );
    const stored = bodies.all(hashA, first, hashB, second);
    const seqOf = (hash) => stored.find((row) => hash.equals(row.hash)).seq;
    links.run(seq, seqOf(hashA), seq, seqOf(hashB));
    const moved = move.run(seq, now, branch.seq, branch.name, branch.head_seq);
    if (moved.changes !== 1) throw new Error(`the head of ${branch.name} did not move`);
    touch.run(now, branch.seq);
  });
  // The store's write transactions take the write lock first (`begin immediate`).
  return { db, commit: transaction.immediate };
}

/** The two-message turn part 1 commits as its `index`th. */
const commitTurn = (index) => [
  text(`u${index}`, 'user', `q${index}`),
  text(`a${index}`, 'assistant', `a`),
];

/**
 * Part 1's contestants: each opens its file (again: its write-ahead log starts empty, as for a
 * process that opens an existing session file), commits its `index`th two-message turn, closes.
 */
async function commitContestants() {
  const store = (options) => {
    const file = freshPath();
    let opened;
    let session;
    let head = null;
    return {
      open: async () => {
        opened = await openSqliteStore(file, options);
        session ??= (await opened.createSession()).id;
      },
      commit: async (index) => {
        const turn = { messages: commitTurn(index), meta: {} };
        head = (await opened.commit(session, turn, { expectedHead: head })).id;
      },
      close: () => opened.close(),
    };
  };
  const floorPath = freshPath();
  let raw;
  let parent = null;
  // The store makes the file before the others open theirs: the thread it leaves idle then
  // serves `ours` from the start, and is the one `ours` gets back when it opens again.
  const schemaPath = freshPath();
  const maker = await openSqliteStore(schemaPath);
  await maker.createSession({ id: 's' });
  await maker.close();
  let schema;
  return {
    ours: store(undefined),
    asleep: store({ lingerMs: 0 }),
    schema: {
      open: async () => {
        schema = schemaDatabase(schemaPath);
      },
      commit: async (index) => schema.commit(commitTurn(index)),
      close: async () => schema.db.close(),
    },
    floor: {
      open: async () => {
        raw = rawDatabase(floorPath);
      },
      commit: async (index) => {
        parent = raw.commit('s', parent, commitTurn(index));
      },
      close: async () => raw.db.close(),
    },
  };
}

/**
 * How many commits after an open part 1 times first. On a file of 1,000 turns the store writes
 * about 13 pages a commit, so its log is full (1,000 pages) and starts over after about 72
 * commits, the by-hand floor's after about 76: all 60 meet a growing log.
 */
const AFTER_OPEN = 60;
/** Commits after an open before part 1 times the settled ones: every log has wrapped by then. */
const SETTLE = 1000;

/**
 * 1. Latency of `store.commit` (the defaults), of the same with `lingerMs: 0` (the store's thread
 * sleeps after each answer, as it did before it lingered), of the store's statements by hand and of
 * the raw floor, in ms per commit, on files that held 1,000 turns when they were opened again. Two
 * figures, as SQLite's write-ahead log makes them:
 * - `open`: the first AFTER_OPEN commits after the file is opened, median and p90 (the first
 *   commit after an open, with an empty page cache and statements to prepare, is the maximum).
 *   Closing a file deletes its log; each commit then appends to a new one, so its sync (SQLite
 *   here calls `fsync`) also writes the blocks the file gained and its new size. That is the log
 *   a short-lived process (the CLI) meets. The store's thread is not cold, as a new process's
 *   would be: `ours` gets back the thread it left when it closed.
 * - `settled`: COMMITS commits from SETTLE after the open on, once every log has wrapped (ours and
 *   the by-hand floor's after about 75 commits, the floor's, 2.1 pages a commit, after about 480)
 *   and is written over in place: what a long-lived process meets. Median and p99: the store and
 *   the by-hand floor checkpoint their log about every 75 commits, inside the commit that fills
 *   it (about 5 of the 400), the floor about every 480 (at most 1): the p99 shows that.
 * All take turns of 30 or 50 commits; the order rotates and reverses from one turn to the next,
 * and from one run to the next: all meet the disk's same minutes.
 */
async function commitLatency(run) {
  const contestants = await commitContestants();
  const who = Object.keys(contestants);
  // After the reopen, the idle thread the first store left serves `ours`; `asleep` starts a new
  // thread, whose code is not compiled yet: its first commits would time that, so it is timed
  // only once settled.
  const times = { open: { ours: [], schema: [], floor: [] }, settled: {} };
  for (const name of who) times.settled[name] = [];
  let round = run;
  /** Commits `from` to `to` (exclusive) of each, in turns of `size`; `phase` times them. */
  const inTurns = async (from, to, size, phase) => {
    for (let at = from; at < to; at += size, round++) {
      const order = round % 2 === 0 ? who : [...who].reverse();
      for (let turn = 0; turn < who.length; turn++) {
        const name = order[(round + turn) % who.length];
        for (let index = at; index < Math.min(to, at + size); index++) {
          const start = performance.now();
          await contestants[name].commit(index);
          if (phase && times[phase][name]) times[phase][name].push(performance.now() - start);
        }
      }
    }
  };
  // A file of 1,000 turns, closed: the next open starts an empty log. (Settled, the files hold
  // 2,000 to 2,400 turns.)
  for (const contestant of Object.values(contestants)) await contestant.open();
  await inTurns(0, SETTLE, 500);
  for (const contestant of Object.values(contestants)) await contestant.close();
  for (const contestant of Object.values(contestants)) await contestant.open();
  await inTurns(SETTLE, SETTLE + AFTER_OPEN, AFTER_OPEN / 2, 'open');
  await inTurns(SETTLE + AFTER_OPEN, 2 * SETTLE, 500);
  await inTurns(2 * SETTLE, 2 * SETTLE + COMMITS, 50, 'settled');
  for (const contestant of Object.values(contestants)) await contestant.close();
  const result = {};
  for (const [phase, timed] of Object.entries(times)) {
    for (const name of Object.keys(timed)) {
      result[`${phase}.${name}`] = median(times[phase][name]);
      result[`${phase}.${name}Tail`] = percentile(times[phase][name], phase === 'open' ? 90 : 99);
    }
  }
  return result;
}

/** Store calls the Agent made, by tool and method: what one step asks of the store. */
const storeCalls = {};

/** Counts the store's calls by method, keeping the store as it is. */
function counted(store, label) {
  storeCalls[label] ??= {};
  const calls = storeCalls[label];
  for (const method of [
    'commit',
    'commitTurns',
    'journalTurn',
    'journalStart',
    'journalEnd',
    'load',
    'pendingTurn',
  ]) {
    if (typeof store[method] !== 'function') continue;
    const call = store[method].bind(store);
    store[method] = (...args) => {
      calls[method] = (calls[method] ?? 0) + 1;
      return call(...args);
    };
  }
  return store;
}

/** The Agent with a session, one step (`agent.run`) at a time: `step(n)` returns its ms. */
async function agentStepper(tool, path = freshPath(), label = tool.name) {
  const store = counted(await openSqliteStore(path), label);
  const agent = new Agent({
    provider: provider(undefined, tool.name),
    model: MODEL,
    tools: [tool],
    permissions: { grants: ['write'] },
    session: { store, id: 'bench' },
  });
  return {
    async step(step) {
      const start = performance.now();
      const result = await agent.run(`step ${step}`);
      const ms = performance.now() - start;
      if (result.status !== 'completed') throw new Error(`step ${step} ended ${result.status}`);
      return ms;
    },
    close: () => store.close(),
  };
}

/**
 * The floor of a step, one at a time: the same model and tool, raw better-sqlite3, one fsync per
 * commit.
 */
function floorStepper(tool, path = freshPath()) {
  const raw = rawDatabase(path);
  const model = provider(undefined, tool.name);
  const tools = [toolSpec(tool)];
  const claimed = tool.permission !== 'read';
  // A call that only reads is not claimed or journaled itself, as ours (a crash runs it again
  // from the journaled turn); a write is claimed before it runs and journaled after.
  const journaled = async (run) => {
    raw.journal.start('s');
    const result = await run();
    raw.journal.end('s', result);
    return result;
  };
  const signal = new AbortController().signal;
  const history = [];
  let parent = null;
  /** A tool turn waiting to be committed with the turn after it. */
  let held;
  return {
    async step(step) {
      const start = performance.now();
      const prompt = text(`p${step}`, 'user', `step ${step}`);
      history.push(prompt);
      parent = raw.commit('s', parent, [prompt]);
      for (let turn = 0; ; turn++) {
        const message = await modelTurn(model, { model: MODEL, messages: history, tools }, signal);
        history.push(message);
        if (message.content.some((block) => block.type === 'tool_use')) {
          // A tool turn held back from the turn before is committed before this one is journaled.
          if (held) parent = raw.commit('s', parent, held);
          held = undefined;
          raw.journal.turn('s', message);
        }
        const content = await answerCalls(tool, message, signal, claimed ? journaled : undefined);
        if (content.length === 0) {
          // The answer, with the tool turn before it in the same transaction, as ours.
          parent = held
            ? raw.commitMany('s', parent, [held, [message]])
            : raw.commit('s', parent, [message]);
          held = undefined;
          break;
        }
        const results = { id: `r${step}-${turn}`, role: 'user', content };
        history.push(results);
        held = [message, results];
      }
      return performance.now() - start;
    },
    close: async () => raw.db.close(),
  };
}

/** Steps taken in a row by ours or the floor before the other takes as many (see `pairedSteps`). */
const CHUNK = 50;

/**
 * `steps` steps of ours and of the floor, on files of their own, in turns of CHUNK steps (which
 * goes first alternates): both meet the same minutes of the disk, whose fsync time drifts, without
 * one's fsync flushing the other's writes step by step. Per-step ms of each, and each step's
 * ours ÷ floor.
 */
async function pairedSteps(steps, tool, paths = {}) {
  const ours = await agentStepper(tool, paths.ours, paths.label);
  const floor = floorStepper(tool, paths.floor);
  const times = { ours: new Array(steps), floor: new Array(steps), ratios: [] };
  try {
    for (let from = 0, turn = 0; from < steps; from += CHUNK, turn++) {
      const to = Math.min(steps, from + CHUNK);
      const order = turn % 2 === 0 ? ['ours', 'floor'] : ['floor', 'ours'];
      for (const who of order) {
        const stepper = who === 'ours' ? ours : floor;
        for (let step = from; step < to; step++) times[who][step] = await stepper.step(step);
      }
    }
  } finally {
    await ours.close();
    await floor.close();
  }
  times.ratios = times.ours.map((mine, step) => mine / times.floor[step]);
  return times;
}

const windowMs = (times, from) => median(times.slice(from, from + 10));

/** 3. A agents at once on one file (one shared store): event-loop delay and commits per second. */
async function eventLoop(agents) {
  const store = await openSqliteStore(freshPath());
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  // Our own lateness probe as well: a 1 ms timer's lateness, the delay a tool timeout would see.
  let late = 0;
  let expected = performance.now() + 1;
  const probe = setInterval(() => {
    const now = performance.now();
    late = Math.max(late, now - expected);
    expected = now + 1;
  }, 1);
  histogram.enable();
  const start = performance.now();
  const results = await Promise.all(
    Array.from({ length: agents }, async (_, index) => {
      const agent = new Agent({
        provider: provider(1),
        model: MODEL,
        tools: [add],
        session: { store, id: `agent-${index}` },
      });
      for (let step = 0; step < LOOP_STEPS; step++) {
        const result = await agent.run(`step ${step}`);
        if (result.status !== 'completed') throw new Error(`agent ${index}: ${result.status}`);
      }
    }),
  );
  const end = performance.now();
  // A stall that lasts to the end of the run never let the probe fire: count it too.
  late = Math.max(late, end - expected);
  const seconds = (end - start) / 1000;
  histogram.disable();
  clearInterval(probe);
  await store.close();
  // Per step: the prompt, the tool turn and the answer are three commits.
  const commits = results.length * LOOP_STEPS * 3;
  return {
    p99Ms: histogram.count > 0 ? histogram.percentile(99) / 1e6 : late,
    lateMs: late,
    commitsPerSecond: commits / seconds,
  };
}

/** 4. Commits per second of W writers sharing one store, each on its own session, no model. */
async function throughput(writers) {
  const store = await openSqliteStore(freshPath());
  for (let w = 0; w < writers; w++) await store.createSession({ id: `w${w}` });
  const perWriter = Math.max(20, Math.ceil(2000 / writers));
  const start = performance.now();
  await Promise.all(
    Array.from({ length: writers }, async (_, w) => {
      let head = null;
      for (let index = 0; index < perWriter; index++) {
        const messages = [text(`u${w}-${index}`, 'user', `q${index}`)];
        head = (await store.commit(`w${w}`, { messages, meta: {} }, { expectedHead: head })).id;
      }
    }),
  );
  const seconds = (performance.now() - start) / 1000;
  await store.close();
  return (writers * perWriter) / seconds;
}

/** The floor of 4: raw better-sqlite3, one writer, one transaction (one fsync) per commit. */
function rawThroughput() {
  const raw = rawDatabase(freshPath());
  let parent = null;
  const start = performance.now();
  for (let index = 0; index < 2000; index++) {
    parent = raw.commit('s', parent, [text(`u${index}`, 'user', `q${index}`)]);
  }
  const seconds = (performance.now() - start) / 1000;
  raw.db.close();
  return 2000 / seconds;
}

async function main() {
  console.log(`session overhead (SQLite, WAL, synchronous = FULL), median of ${REPEATS} runs`);
  if (PARTS.has(1)) await part1();
  if (PARTS.has(2)) await part2();
  if (PARTS.has(3)) await part3();
  if (PARTS.has(4)) await part4();
  console.log(`load average: ${(await import('node:os')).loadavg().map((v) => v.toFixed(2))}`);
}

async function part1() {
  const latency = [];
  for (let run = 0; run < REPEATS; run++) latency.push(await commitLatency(run));
  const pick = (key) => median(latency.map((run) => run[key]));
  console.log('1. store.commit of a two-message turn, on a file of 1,000 turns opened again:');
  const phases = {
    open: [
      `the first ${AFTER_OPEN} commits after opening it (the new write-ahead log grows)`,
      'p90',
    ],
    settled: [
      `${COMMITS} commits once the log is written over in place (${SETTLE} commits after opening it)`,
      'p99',
    ],
  };
  for (const [phase, [title, tail]] of Object.entries(phases)) {
    const at = (name) => pick(`${phase}.${name}`);
    const figure = (name) =>
      `${fmt(at(name), 3)} ms (${tail} ${pick(`${phase}.${name}Tail`).toFixed(3)})`;
    const ratio = (name) => `×floor ${(at(name) / at('floor')).toFixed(2)}`;
    console.log(`   ${title}:`);
    console.log(`     ours ${figure('ours')}  floor ${figure('floor')}  ${ratio('ours')}`);
    console.log(
      `     the store's statements by hand (raw better-sqlite3, its schema): ${figure('schema')}  ${ratio('schema')}`,
    );
    if (phase === 'settled') {
      console.log(
        `     ours with lingerMs: 0 (the thread sleeps after each answer): ${figure('asleep')}  ${ratio('asleep')}`,
      );
    }
  }
}

async function part2() {
  for (const tool of [add, record]) await agentVersusFloor(tool);
  await longSession();
  await ramDiskSteps();
}

/**
 * 2, one session of LONG_STEPS steps (tool `add`; 4 messages a step, 20,000 at 5,000): the median
 * step of its first and last 1,000 steps (from step 101), ours and the floor's, in one run each.
 * A step that copied or re-read the conversation would grow here, past where the 1,000-step
 * runs stop.
 */
async function longSession() {
  if (LONG_STEPS === 0) return;
  const { ours, floor, ratios } = await pairedSteps(LONG_STEPS, add, { label: 'long' });
  const windows = [100, LONG_STEPS - 1000];
  const cells = windows.map((from) => {
    const [mine, base, ratio] = [ours, floor, ratios].map((values) =>
      median(values.slice(from, from + 1000)),
    );
    return { label: `${from + 1}–${from + 1000}`, mine, base, ratio };
  });
  console.log(`2. one session of ${LONG_STEPS} steps, tool \`add\`, median step (one run):`);
  for (const { label, mine, base, ratio } of cells)
    console.log(
      `   steps ${label.padEnd(12)} ours ${fmt(mine)} ms  floor ${fmt(base)} ms  ×floor ${fmt(ratio)}`,
    );
  const [first, last] = cells;
  console.log(
    `   last/first window: ours ${(last.mine / first.mine).toFixed(2)}, floor ${(last.base / first.base).toFixed(2)} (flat is about 1 or below)`,
  );
}

/**
 * 2, again with `add`, the files on a RAM disk (/dev/shm, where an fsync costs next to nothing):
 * what is left of a step is CPU, ours on two threads and the floor's on one, and the crossings
 * between our threads. Not what users run: it tells how much of the gap to the floor the disk is.
 */
async function ramDiskSteps() {
  if (!existsSync('/dev/shm')) return;
  const ram = mkdtempSync(join('/dev/shm', 'mh-session-bench-'));
  try {
    const runs = [];
    for (let run = 0; run < REPEATS; run++) {
      const paths = { ours: join(ram, `a${run}.db`), floor: join(ram, `f${run}.db`) };
      runs.push(await pairedSteps(STEPS, add, { ...paths, label: 'ram disk' }));
    }
    const from = Math.min(100, STEPS - 10);
    const steady = (key) => median(runs.map((times) => median(times[key].slice(from))));
    console.log(
      `2. the same, tool \`add\`, files on a RAM disk (no fsync cost): median step, steps ${from + 1}–${STEPS}: ours ${steady('ours').toFixed(2)} ms, floor ${steady('floor').toFixed(2)} ms, ×floor ${steady('ratios').toFixed(2)}`,
    );
  } finally {
    rmSync(ram, { recursive: true, force: true });
  }
}

async function agentVersusFloor(tool) {
  const runs = [];
  for (let run = 0; run < REPEATS; run++) runs.push(await pairedSteps(STEPS, tool));
  const windows = [0, 10, STEPS - 10];
  const at = (key, from) => median(runs.map((times) => windowMs(times[key], from)));
  console.log(
    `2. Agent + session per step (${MODEL}, defaults), ${STEPS} steps, tool \`${tool.name}\` (${tool.permission}), ms per step:`,
  );
  console.log('   steps        ours     floor   ×floor');
  for (const from of windows) {
    const label = `${from + 1}–${from + 10}`.padEnd(10);
    console.log(
      `   ${label}${fmt(at('ours', from))}  ${fmt(at('floor', from))}  ${fmt(at('ratios', from))}`,
    );
  }
  const growth = median(
    runs.map((times) => windowMs(times.ours, STEPS - 10) / windowMs(times.ours, 10)),
  );
  console.log(`   last/second window: ${growth.toFixed(2)} (flat is about 1)`);
  // Steps 101 on: by then SQLite's WAL file has reached its working size and is rewritten in
  // place; while it still grows (a new file), each fsync also flushes the file's new size.
  if (STEPS > 100) {
    const steady = (key) => median(runs.map((times) => median(times[key].slice(100))));
    console.log(
      `   median step, steps 101–${STEPS}: ours ${steady('ours').toFixed(2)} ms, floor ${steady('floor').toFixed(2)} ms, ×floor ${steady('ratios').toFixed(2)} (median of each step's ratio)`,
    );
  }
  const perStep = Object.entries(storeCalls[tool.name])
    .map(([method, calls]) => `${method} ${(calls / (STEPS * REPEATS)).toFixed(1)}`)
    .join(', ');
  console.log(`   store calls per step: ${perStep}`);
}

async function part3() {
  console.log(`3. agents at once on one file, ${LOOP_STEPS} steps each:`);
  console.log('   agents   max timer lateness ms   loop delay p99 ms   commits/s');
  for (const agents of AGENTS) {
    const runs = [];
    for (let run = 0; run < REPEATS; run++) runs.push(await eventLoop(agents));
    const get = (key) => median(runs.map((run) => run[key]));
    console.log(
      `   ${String(agents).padEnd(6)}${fmt(get('lateMs'), 1)}                ${fmt(get('p99Ms'), 1)}          ${fmt(get('commitsPerSecond'), 0)}`,
    );
  }
}

async function part4() {
  console.log('4. commits/s, writers sharing one store (each its own session), no model:');
  const floorRuns = [];
  for (let run = 0; run < REPEATS; run++) floorRuns.push(rawThroughput());
  console.log(`   floor (raw better-sqlite3, one writer): ${fmt(median(floorRuns), 0)}`);
  for (const writers of WRITERS) {
    const runs = [];
    for (let run = 0; run < REPEATS; run++) runs.push(await throughput(writers));
    console.log(`   ${String(writers).padEnd(4)} writers: ${fmt(median(runs), 0)}`);
  }
}

try {
  await main();
} finally {
  rmSync(folder, { recursive: true, force: true });
}
