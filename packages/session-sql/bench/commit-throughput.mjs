// Commit latency and throughput of the session store with 1, 4 and 8 worker processes, on SQLite
// (one file, WAL, synchronous = FULL) and on PostgreSQL (a throwaway local server at its default
// durability: fsync on, synchronous_commit on; or MH_BENCH_PG_URL). Each worker commits to
// sessions of its own, so the numbers measure the store, not head conflicts. Runs against the
// built package (the bench task depends on build). Also reports storage per turn.
//   BENCH_COMMITS (per worker, default 150), BENCH_RUNS (default 3), BENCH_WORKERS (1,4,8),
//   BENCH_BACKENDS (sqlite,postgres), BENCH_STORAGE_TURNS (default 600)
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openSqliteStore } from '@mh/session-sql';
import { openPostgresStore } from '@mh/session-sql/postgres';
import Database from 'better-sqlite3';
import pg from 'pg';
import {
  createDatabase,
  dropDatabase,
  findPostgresBin,
  startPostgres,
} from '../test/support/throwaway-postgres.mjs';

const COMMITS = Number(process.env.BENCH_COMMITS ?? 150);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const WORKERS = (process.env.BENCH_WORKERS ?? '1,4,8').split(',').map(Number);
const STORAGE_TURNS = Number(process.env.BENCH_STORAGE_TURNS ?? 600);
const SESSIONS_PER_WORKER = 4;
for (const [name, value, least] of [
  ['BENCH_COMMITS', COMMITS, 1],
  ['BENCH_RUNS', RUNS, 1],
  ['BENCH_STORAGE_TURNS', STORAGE_TURNS, 0],
  ...WORKERS.map((workers) => ['BENCH_WORKERS', workers, 1]),
]) {
  if (!Number.isInteger(value) || value < least)
    throw new Error(`${name}: expected an integer of at least ${least}, got ${value}`);
}
const here = dirname(fileURLToPath(import.meta.url));

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)];
};
const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};

function startWorker(spec, name, commits) {
  const child = spawn(
    process.execPath,
    [
      join(here, 'children', 'commit-worker.mjs'),
      spec,
      name,
      String(SESSIONS_PER_WORKER),
      String(commits),
    ],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  let out = '';
  child.stdout.on('data', (chunk) => {
    out += chunk;
    if (out.includes('ready\n')) child.emit('ready');
  });
  const ready = new Promise((resolve) => child.once('ready', resolve));
  const done = new Promise((resolve, reject) =>
    child.on('exit', (code) =>
      code === 0
        ? resolve(JSON.parse(out.split('\n').filter(Boolean).at(-1)))
        : reject(new Error(`bench worker exited ${code}`)),
    ),
  );
  return { child, ready, done };
}

/** One run: `workers` processes on a fresh store; returns latencies, throughput and raw bytes. */
async function run(spec, workers, commits = COMMITS) {
  const children = Array.from({ length: workers }, (_, i) => startWorker(spec, `w${i}`, commits));
  await Promise.all(children.map((c) => c.ready));
  for (const c of children) c.child.stdin.write('go\n');
  const results = await Promise.all(children.map((c) => c.done));
  const latencies = results.flatMap((r) => r.latencies);
  const seconds =
    (Math.max(...results.map((r) => r.end)) - Math.min(...results.map((r) => r.start))) / 1000;
  return {
    latencies,
    throughput: latencies.length / seconds,
    rawBytes: results.reduce((sum, r) => sum + r.rawBytes, 0),
  };
}

const openStore = (spec) =>
  spec.startsWith('postgres')
    ? openPostgresStore({ connectionString: spec, poolSize: 1 })
    : openSqliteStore(spec);

const sqliteTarget = {
  name: 'SQLite',
  async fresh() {
    const folder = mkdtempSync(join(tmpdir(), 'mh-bench-'));
    const path = join(folder, 'bench.db');
    return {
      spec: path,
      async bytes() {
        const database = new Database(path);
        database.pragma('wal_checkpoint(TRUNCATE)');
        database.close();
        const size = (file) => statSync(file, { throwIfNoEntry: false })?.size ?? 0;
        return size(path) + size(`${path}-wal`);
      },
      async drop() {
        rmSync(folder, { recursive: true, force: true });
      },
    };
  },
};

async function postgresTarget() {
  let server;
  let base = process.env.MH_BENCH_PG_URL;
  if (!base) {
    if (!findPostgresBin()) return undefined;
    server = await startPostgres();
    base = server.url;
  }
  return {
    name: 'PostgreSQL',
    server,
    async fresh() {
      const url = await createDatabase(base, 'mh_bench');
      return {
        spec: url,
        async bytes() {
          const client = new pg.Client({ connectionString: url });
          await client.connect();
          try {
            // Heap, indexes and TOAST of the store's tables (not the migration bookkeeping).
            const { rows } = await client.query(`
              select sum(pg_total_relation_size(c.oid))::bigint as bytes
              from pg_class c join pg_namespace n on n.oid = c.relnamespace
              where n.nspname = 'mh' and c.relkind = 'r' and c.relname not like 'mh_migration%'`);
            return Number(rows[0].bytes);
          } finally {
            await client.end();
          }
        },
        drop: () => dropDatabase(url),
      };
    },
  };
}

const BACKENDS = (process.env.BENCH_BACKENDS ?? 'sqlite,postgres').split(',');
const targets = BACKENDS.includes('sqlite') ? [sqliteTarget] : [];
const postgres = BACKENDS.includes('postgres') ? await postgresTarget() : undefined;
if (postgres) targets.push(postgres);
else if (BACKENDS.includes('postgres')) {
  console.log('PostgreSQL not found (no binaries, no MH_BENCH_PG_URL): SQLite only');
}

console.log(
  `session store commit bench: ${COMMITS} commits per worker (2 messages of ~500 B each), ` +
    `${SESSIONS_PER_WORKER} sessions per worker, median of ${RUNS} runs`,
);
console.log('backend      workers  commits/s  latency p50  latency p95   (ms)');
try {
  for (const target of targets) {
    for (const workers of WORKERS) {
      const throughputs = [];
      const p50s = [];
      const p95s = [];
      for (let r = 0; r < RUNS; r++) {
        const store = await target.fresh();
        try {
          const result = await run(store.spec, workers);
          throughputs.push(result.throughput);
          p50s.push(median(result.latencies));
          p95s.push(percentile(result.latencies, 95));
        } finally {
          await store.drop();
        }
      }
      console.log(
        `${target.name.padEnd(12)} ${String(workers).padStart(7)}  ${median(throughputs).toFixed(0).padStart(9)}  ` +
          `${median(p50s).toFixed(2).padStart(11)}  ${median(p95s).toFixed(2).padStart(11)}`,
      );
    }
  }
  // Storage: one worker commits STORAGE_TURNS turns; the growth over the empty (migrated) store,
  // per turn, leaves out the fixed cost of empty tables and indexes. BENCH_STORAGE_TURNS=0 skips it.
  for (const target of STORAGE_TURNS > 0 ? targets : []) {
    const store = await target.fresh();
    try {
      const empty = await openStore(store.spec);
      await empty.close();
      const before = await store.bytes();
      const result = await run(store.spec, 1, STORAGE_TURNS);
      const after = await store.bytes();
      const turns = result.latencies.length;
      console.log(
        `storage ${target.name.padEnd(10)} ${((after - before) / turns).toFixed(0)} B/turn on disk for ` +
          `${(result.rawBytes / turns).toFixed(0)} B/turn of message JSON ` +
          `(${((after - before) / result.rawBytes).toFixed(2)}x; ${turns} turns; empty store ${(before / 1024).toFixed(0)} KiB)`,
      );
    } finally {
      await store.drop();
    }
  }
} finally {
  postgres?.server?.remove();
}
