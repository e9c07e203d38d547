// Storage and commit latency of one session growing by 2 messages of ~500 bytes per turn for
// 1000 turns, against the built package (the bench task depends on build). Bytes on disk are
// measured after `PRAGMA wal_checkpoint(TRUNCATE)` (main file + WAL), then again after VACUUM.
// "Raw" is the JSON of the messages; the checkpoint metadata (model, usage, cost) is counted
// apart. Commit latency (each commit synced to disk: WAL, synchronous = FULL) is dominated by
// fsync noise, so it is sampled interleaved: commits of turn 10 and of turn 1000 alternate, each
// on a fresh branch rewound to turn 9 or 999, and the medians of the two sets are compared.
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { openSqliteStore } from '@mh/session-sql';
import Database from 'better-sqlite3';

const TURNS = Number(process.env.BENCH_TURNS ?? 1000);
const TEXT = process.env.BENCH_TEXT ?? 'source';
const MESSAGE_BYTES = 500;

let seed = 42;
const random = () => {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed / 2147483648;
};

// Message text: slices of this package's own source and README (code and prose, like an agent's
// messages and tool output), or incompressible random characters (BENCH_TEXT=random).
const here = dirname(fileURLToPath(import.meta.url));
const corpus = [
  join(here, '..', 'README.md'),
  ...readdirSync(join(here, '..', 'src'), { recursive: true })
    .filter((f) => f.endsWith('.ts'))
    .sort()
    .map((f) => join(here, '..', 'src', f)),
]
  .map((file) => readFileSync(file, 'utf8'))
  .join('\n');
const ALPHABET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+/';
function text(length) {
  if (TEXT === 'random') {
    return Array.from({ length }, () => ALPHABET[Math.floor(random() * ALPHABET.length)]).join('');
  }
  const start = Math.floor(random() * (corpus.length - length));
  return corpus.slice(start, start + length);
}

/** A message whose JSON is about MESSAGE_BYTES long. */
function message(turn, role) {
  const base = { id: `msg_${turn}_${role}`, role, content: [{ type: 'text', text: '' }] };
  let body = text(MESSAGE_BYTES - JSON.stringify(base).length);
  while (
    JSON.stringify({ ...base, content: [{ type: 'text', text: body }] }).length > MESSAGE_BYTES
  ) {
    body = body.slice(0, -8);
  }
  base.content[0].text = body;
  return base;
}

const meta = (turn) => ({
  model: 'claude-sonnet-4-5',
  usage: {
    inputTokens: 1200 + turn,
    outputTokens: 150,
    cacheReadTokens: 1000,
    cacheWriteTokens: 0,
  },
  costUsd: 0.0042,
});

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};

const folder = mkdtempSync(join(tmpdir(), 'mh-bench-'));
const path = join(folder, 'bench.db');
const size = (file) => {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
};
/** Checkpoints the WAL into the main file from a second connection and returns bytes on disk. */
function bytesOnDisk(vacuum = false) {
  const database = new Database(path);
  database.pragma('wal_checkpoint(TRUNCATE)');
  if (vacuum) {
    database.exec('VACUUM');
    database.pragma('wal_checkpoint(TRUNCATE)');
  }
  database.close();
  return size(path) + size(`${path}-wal`);
}

const store = await openSqliteStore(path);
await store.createSession({ id: 'bench' });
let head = null;
let rawBytes = 0;
let metaBytes = 0;
const growth = [];
const sequential = [];
for (let turn = 1; turn <= TURNS; turn++) {
  const messages = [message(turn, 'user'), message(turn, 'assistant')];
  for (const m of messages) rawBytes += Buffer.byteLength(JSON.stringify(m));
  metaBytes += Buffer.byteLength(JSON.stringify(meta(turn)));
  const started = performance.now();
  head = (await store.commit('bench', { messages, meta: meta(turn) }, { expectedHead: head })).id;
  sequential.push(performance.now() - started);
  if (turn === TURNS / 4 || turn === TURNS / 2)
    growth.push({ turn, bytes: bytesOnDisk(), rawBytes });
}
const loadStarted = performance.now();
const state = await store.load('bench');
const loadMs = performance.now() - loadStarted;
const finalBytes = bytesOnDisk();
const vacuumedBytes = bytesOnDisk(true);
const inspect = new Database(path, { readonly: true });
const deflated = inspect.prepare('select count(*) from messages where codec = 1').pluck().get();
inspect.close();

// Branches first: rewind returns the branch's full history, and the garbage of loading 999
// turns would otherwise land in the next timed commit.
const SAMPLES = 31;
const points = [
  { checkpoint: state.checkpoints[8].id, turn: 9, times: [] },
  { checkpoint: state.checkpoints[TURNS - 2].id, turn: TURNS - 1, times: [] },
];
for (let sample = 0; sample < SAMPLES; sample++) {
  for (const point of points)
    await store.rewind('bench', point.checkpoint, `s-${point.turn}-${sample}`);
}
for (let sample = 0; sample < SAMPLES; sample++) {
  for (const point of points) {
    const messages = [message(`s${sample}`, 'user'), message(`s${sample}`, 'assistant')];
    const turn = { messages, meta: meta(point.turn + 1) };
    const options = { expectedHead: point.checkpoint, branch: `s-${point.turn}-${sample}` };
    const started = performance.now();
    await store.commit('bench', turn, options);
    point.times.push(performance.now() - started);
  }
}
const [early, late] = points.map((point) => point.times);
await store.close();
rmSync(folder, { recursive: true, force: true });

const fullSnapshots = (rawBytes / TURNS) * ((TURNS * (TURNS + 1)) / 2);
const half = growth.at(-1) ?? { turn: 0, bytes: 0, rawBytes: 0 };
const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KiB`;
console.log(
  `session-sql storage bench: ${TURNS} turns x 2 messages of ~${MESSAGE_BYTES} bytes (${TEXT} text)`,
);
console.log(`  bodies stored deflated        ${deflated} of ${TURNS * 2}`);
console.log(`  messages loaded back          ${state.messages.length}`);
console.log(
  `  raw message bytes (JSON)      ${kb(rawBytes)} (${(rawBytes / TURNS).toFixed(0)} B/turn)`,
);
console.log(
  `  checkpoint metadata (JSON)    ${kb(metaBytes)} (${(metaBytes / TURNS).toFixed(0)} B/turn)`,
);
console.log(
  `  on disk (db + wal)            ${kb(finalBytes)} (${(finalBytes / TURNS).toFixed(0)} B/turn)`,
);
console.log(
  `  ratio to raw message bytes    ${(finalBytes / rawBytes).toFixed(2)}x (target <= 1.5x)`,
);
console.log(`  ratio to messages + metadata  ${(finalBytes / (rawBytes + metaBytes)).toFixed(2)}x`);
console.log(
  `  after VACUUM                  ${kb(vacuumedBytes)} (${(vacuumedBytes / rawBytes).toFixed(2)}x raw)`,
);
for (const point of growth) {
  console.log(
    `  on disk at turn ${String(point.turn).padEnd(13)} ${kb(point.bytes)} (${(point.bytes / point.rawBytes).toFixed(2)}x raw)`,
  );
}
console.log(
  `  growth, turns ${half.turn}-${TURNS}         ${((finalBytes - half.bytes) / (TURNS - half.turn)).toFixed(0)} B/turn for ${((rawBytes - half.rawBytes) / (TURNS - half.turn)).toFixed(0)} raw B/turn`,
);
console.log(`  full snapshot per checkpoint  ${kb(fullSnapshots)} of message JSON (quadratic)`);
console.log(
  `  commit latency at turn 10     ${median(early).toFixed(2)} ms (median of ${early.length})`,
);
console.log(
  `  commit latency at turn ${TURNS}   ${median(late).toFixed(2)} ms (median of ${late.length}), ratio ${(median(late) / median(early)).toFixed(2)}`,
);
console.log(
  `  in the growing run            ${median(sequential.slice(0, 21)).toFixed(2)} ms at turns 1-21, ${median(sequential.slice(-21)).toFixed(2)} ms at turns ${TURNS - 20}-${TURNS} (medians)`,
);
console.log(`  load of ${TURNS} turns            ${loadMs.toFixed(1)} ms`);
