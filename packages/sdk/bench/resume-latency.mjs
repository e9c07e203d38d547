// Resume latency after a restart (interrupts): how long a NEW process takes to open the session
// store and finish `agent.resume({ decisions })` on a turn held for approval. Runs against the
// BUILT packages, on SQLite (a file in a temp folder, WAL, synchronous = FULL) and on PostgreSQL
// when MH_BENCH_PG_URL or MH_TEST_PG_URL names a server (a schema of its own, dropped at the end;
// skipped with a note otherwise).
//
// Each sample: in this process, an Agent runs a prompt on a fresh session until its `charge` tool
// (needsApproval, not idempotent) interrupts the run; the store is closed. Then a child process
// (modules already imported) times, inside itself, from before opening the store to the end of
// `resume`: open-store ms, resume ms (the approved call claimed, run, its result journaled, the
// scripted model's immediate answer, the checkpoint), and their total. Median, p90 and min of
// BENCH_SAMPLES (default 20). Process start-up and module loading are not counted, except that
// SQLite's open includes starting the store's worker thread and loading its modules there (the
// first open in a process pays it; another open in the same process took 1–2 ms), while the
// floor's better-sqlite3 is loaded in the main thread before its clock starts.
//
// Floor, in the same run and the same kind of child: raw better-sqlite3 (same pragmas) or raw
// `pg` (one connection) on a minimal schema of its own (turns, pending_turns, pending_calls), doing
// what the resume must do durably: open; read the branch's messages and the pending turn with its
// calls; claim the call (one transaction); write its result (one transaction); commit the
// tool-result turn and clear the pending turn (one transaction); commit the model's answer (one
// transaction): the two commits ours makes (its store calls are counted and printed).
// It skips what ours adds: the session and branch checks and locks, the content hashes, the
// schema check on open, the Agent and the model. Ours/floor is printed per column.
//
//   BENCH_SAMPLES (20), BENCH_BACKENDS (sqlite,postgres)
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Agent, defineTool, scripted } from '@mh/sdk';
import { openSqliteStore } from '@mh/session-sql';
import { openPostgresStore } from '@mh/session-sql/postgres';
import Database from 'better-sqlite3';
import { z } from 'zod';

// `pg` is a dependency of session-sql, not of the sdk: load the same copy session-sql uses.
const pg = createRequire(fileURLToPath(import.meta.resolve('@mh/session-sql/postgres')))('pg');

const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 20);
const BACKENDS = (process.env.BENCH_BACKENDS ?? 'sqlite,postgres').split(',');
const PG_URL = process.env.MH_BENCH_PG_URL ?? process.env.MH_TEST_PG_URL;
const MODEL = 'claude-sonnet-4-5';
const USAGE = { inputTokens: 100, outputTokens: 10 };
const SELF = fileURLToPath(import.meta.url);

const charge = defineTool({
  name: 'charge',
  description: 'Charges the card.',
  permission: 'write',
  idempotent: false,
  needsApproval: true,
  input: z.object({ cents: z.number().int() }),
  run: async ({ cents }) => `charged ${cents}`,
});

const openStore = (backend, spec) =>
  backend === 'sqlite'
    ? openSqliteStore(spec)
    : openPostgresStore({ connectionString: PG_URL, schema: spec, poolSize: 1 });

const agentOn = (store, id, answer) =>
  new Agent({
    provider: scripted([answer], { recordRequests: false }),
    model: MODEL,
    tools: [charge],
    permissions: { grants: ['write'] },
    session: { store, id },
  });

// ---------------------------------------------------------------- children (one sample each)

/** Ours: open the store, resume with the approval, close. Prints the times as JSON. */
async function childOurs(backend, spec, sessionId) {
  const t0 = performance.now();
  const store = await openStore(backend, spec);
  const t1 = performance.now();
  const calls = {};
  for (const method of ['load', 'pendingTurn', 'journalStart', 'journalEnd', 'commit']) {
    const call = store[method].bind(store);
    store[method] = (...args) => {
      calls[method] = (calls[method] ?? 0) + 1;
      return call(...args);
    };
  }
  const agent = agentOn(store, sessionId, { text: 'charged, done', usage: USAGE });
  const result = await agent.resume({ decisions: [{ callId: 'c1', approve: true }] });
  const t2 = performance.now();
  await store.close();
  if (result.status !== 'completed') throw new Error(`resume ended ${result.status}`);
  return { open: t1 - t0, resume: t2 - t1, calls };
}

const tool = (id) => ({
  id: `r-${id}`,
  role: 'user',
  content: [{ type: 'tool_result', toolUseId: 'c1', content: [{ type: 'text', text: 'charged' }] }],
});
const answer = (id) => ({
  id: `a2-${id}`,
  role: 'assistant',
  content: [{ type: 'text', text: 'charged, done' }],
});

/** Floor on SQLite: the same reads and writes on raw better-sqlite3. */
function childFloorSqlite(path, session) {
  const t0 = performance.now();
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  const t1 = performance.now();
  db.prepare('select body from turns where session = ? order by seq').all(session);
  db.prepare('select assistant from pending_turns where session = ?').get(session);
  db.prepare('select call_id, started, result from pending_calls where session = ?').all(session);
  db.prepare('update pending_calls set started = 1 where session = ? and call_id = ?').run(
    session,
    'c1',
  );
  db.prepare('update pending_calls set result = ? where session = ? and call_id = ?').run(
    JSON.stringify(tool(session).content[0]),
    session,
    'c1',
  );
  const insert = db.prepare('insert into turns (session, body) values (?, ?)');
  db.transaction(() => {
    insert.run(session, JSON.stringify(tool(session)));
    db.prepare('delete from pending_calls where session = ?').run(session);
    db.prepare('delete from pending_turns where session = ?').run(session);
  })();
  insert.run(session, JSON.stringify(answer(session)));
  const t2 = performance.now();
  db.close();
  return { open: t1 - t0, resume: t2 - t1 };
}

/** Floor on PostgreSQL: the same reads and writes on one raw `pg` connection. */
async function childFloorPostgres(schema, session) {
  const t0 = performance.now();
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  await client.query(`set search_path to ${schema}`);
  const t1 = performance.now();
  await client.query('select body from turns where session = $1 order by seq', [session]);
  await client.query('select assistant from pending_turns where session = $1', [session]);
  await client.query('select call_id, started, result from pending_calls where session = $1', [
    session,
  ]);
  await client.query('update pending_calls set started = 1 where session = $1 and call_id = $2', [
    session,
    'c1',
  ]);
  await client.query('update pending_calls set result = $1 where session = $2 and call_id = $3', [
    JSON.stringify(tool(session).content[0]),
    session,
    'c1',
  ]);
  await client.query('begin');
  await client.query('insert into turns (session, body) values ($1, $2)', [
    session,
    JSON.stringify(tool(session)),
  ]);
  await client.query('delete from pending_calls where session = $1', [session]);
  await client.query('delete from pending_turns where session = $1', [session]);
  await client.query('commit');
  await client.query('insert into turns (session, body) values ($1, $2)', [
    session,
    JSON.stringify(answer(session)),
  ]);
  const t2 = performance.now();
  await client.end();
  return { open: t1 - t0, resume: t2 - t1 };
}

const [mode, ...args] = process.argv.slice(2);
if (mode === 'child') {
  const [kind, backend, spec, session] = args;
  const times =
    kind === 'ours'
      ? await childOurs(backend, spec, session)
      : backend === 'sqlite'
        ? childFloorSqlite(spec, session)
        : await childFloorPostgres(spec, session);
  process.stdout.write(`${JSON.stringify(times)}\n`);
  process.exit(0);
}

// ---------------------------------------------------------------- parent

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};
const min = (values) => Math.min(...values);
const fmt = (value) => value.toFixed(2).padStart(8);

function runChild(args) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SELF, 'child', ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
    });
    child.stderr.on('data', (chunk) => {
      err += chunk;
    });
    child.on('exit', (code) =>
      code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`child exited ${code}: ${err}`)),
    );
  });
}

/** Runs an agent to the interrupt on a fresh session of a freshly opened store, then closes it. */
async function interrupted(backend, spec, sessionId) {
  const store = await openStore(backend, spec);
  const agent = agentOn(store, sessionId, {
    toolCalls: [{ id: 'c1', name: 'charge', input: { cents: 500 } }],
    usage: USAGE,
  });
  const result = await agent.run('Charge 5 dollars');
  await store.close();
  if (result.status !== 'interrupted') throw new Error(`run ended ${result.status}`);
}

const prompt = (id) => ({
  id: `u-${id}`,
  role: 'user',
  content: [{ type: 'text', text: 'Charge 5 dollars' }],
});
const held = (id) => ({
  id: `a1-${id}`,
  role: 'assistant',
  content: [{ type: 'tool_use', id: 'c1', name: 'charge', input: { cents: 500 } }],
});
const FLOOR_TABLES = [
  'create table turns (seq integer primary key, session text, body text)',
  'create table pending_turns (session text primary key, assistant text)',
  'create table pending_calls (session text, call_id text, started integer, result text, primary key (session, call_id))',
];

/** The floor's state after the interrupt: the prompt committed, the assistant turn pending. */
async function floorInterrupted(backend, spec, session) {
  if (backend === 'sqlite') {
    const db = new Database(spec);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.transaction(() => {
      db.prepare('insert into turns (session, body) values (?, ?)').run(
        session,
        JSON.stringify(prompt(session)),
      );
      db.prepare('insert into pending_turns values (?, ?)').run(
        session,
        JSON.stringify(held(session)),
      );
      db.prepare('insert into pending_calls values (?, ?, 0, null)').run(session, 'c1');
    })();
    db.close();
    return;
  }
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  await client.query(`set search_path to ${spec}`);
  await client.query('insert into turns (session, body) values ($1, $2)', [
    session,
    JSON.stringify(prompt(session)),
  ]);
  await client.query('insert into pending_turns values ($1, $2)', [
    session,
    JSON.stringify(held(session)),
  ]);
  await client.query('insert into pending_calls values ($1, $2, 0, null)', [session, 'c1']);
  await client.end();
}

async function bench(backend, ourSpec, floorSpec) {
  const ours = [];
  const floor = [];
  let calls;
  // One warm-up of each (file cache, server caches), not counted.
  for (let sample = -1; sample < SAMPLES; sample++) {
    const id = `s${sample + 1}`;
    await interrupted(backend, ourSpec, id);
    const mine = await runChild(['ours', backend, ourSpec, id]);
    calls = mine.calls;
    await floorInterrupted(backend, floorSpec, id);
    const raw = await runChild(['floor', backend, floorSpec, id]);
    if (sample >= 0) {
      ours.push(mine);
      floor.push(raw);
    }
  }
  console.log(`\n${backend}: ${SAMPLES} resumes, each in a new child process (ms)`);
  console.log(
    '                    median     p90      min   | floor median  p90      min   | ours/floor (medians)',
  );
  for (const column of ['open', 'resume', 'total']) {
    const value = (times) => times.map((t) => (column === 'total' ? t.open + t.resume : t[column]));
    const o = value(ours);
    const f = value(floor);
    console.log(
      `  ${column.padEnd(10)}${fmt(median(o))}${fmt(percentile(o, 90))}${fmt(min(o))}   |${fmt(median(f))}${fmt(percentile(f, 90))}${fmt(min(f))}   | ${(median(o) / median(f)).toFixed(1)}x`,
    );
  }
  console.log(`  store calls of one resume: ${JSON.stringify(calls)}`);
}

const folder = mkdtempSync(join(tmpdir(), 'mh-resume-bench-'));
try {
  if (BACKENDS.includes('sqlite')) {
    const ours = join(folder, 'ours.db');
    const floor = join(folder, 'floor.db');
    const db = new Database(floor);
    db.pragma('journal_mode = WAL');
    for (const table of FLOOR_TABLES) db.exec(table);
    db.close();
    await bench('sqlite', ours, floor);
  }
  if (BACKENDS.includes('postgres')) {
    if (PG_URL === undefined) {
      console.log('\npostgres: skipped (set MH_BENCH_PG_URL or MH_TEST_PG_URL to a server)');
    } else {
      const tag = `${process.pid}_${Date.now().toString(36)}`;
      const ours = `mh_resume_bench_${tag}`;
      const floor = `mh_resume_floor_${tag}`;
      const admin = new pg.Client({ connectionString: PG_URL });
      await admin.connect();
      await admin.query(`create schema ${floor}`);
      for (const table of FLOOR_TABLES) {
        await admin.query(
          `${table.replace('create table ', `create table ${floor}.`).replace('integer primary key', 'bigserial primary key')}`,
        );
      }
      try {
        await bench('postgres', ours, floor);
      } finally {
        await admin.query(`drop schema if exists ${ours} cascade`);
        await admin.query(`drop schema if exists ${floor} cascade`);
        await admin.end();
      }
    }
  }
} finally {
  rmSync(folder, { recursive: true, force: true });
}
