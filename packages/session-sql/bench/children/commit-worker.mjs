// One bench worker: opens the store (`spec`: SQLite path or PostgreSQL URL), creates its own
// sessions, prints `ready`, waits for `go` on stdin, then commits `commits` turns of two ~500-byte
// messages round robin over its sessions, timing each commit. Prints one JSON line at the end:
// { latencies (ms), start and end (epoch ms), rawBytes }.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { openSqliteStore } from '@mh/session-sql';
import { openPostgresStore } from '@mh/session-sql/postgres';

const [spec, worker, sessionsText, commitsText] = process.argv.slice(2);
const here = dirname(fileURLToPath(import.meta.url));
const src = join(here, '..', '..', 'src');
const corpus = readdirSync(src)
  .filter((file) => file.endsWith('.ts'))
  .map((file) => readFileSync(join(src, file), 'utf8'))
  .join('\n');
let seed = [...worker].reduce((sum, char) => sum * 31 + char.charCodeAt(0), 11) % 2147483647;
const random = () => {
  seed = (seed * 48271) % 2147483647;
  return seed / 2147483647;
};
const message = (id, role) => {
  const start = Math.floor(random() * (corpus.length - 440));
  return { id, role, content: [{ type: 'text', text: corpus.slice(start, start + 440) }] };
};

const store = spec.startsWith('postgres')
  ? await openPostgresStore({ connectionString: spec, poolSize: 2 })
  : await openSqliteStore(spec, { busyTimeoutMs: 60_000 });
const heads = new Map();
for (let n = 0; n < Number(sessionsText); n++) {
  const { id } = await store.createSession({ id: `${worker}-s${n}` });
  heads.set(id, null);
}
const ids = [...heads.keys()];
process.stdout.write('ready\n');
await new Promise((resolve) => process.stdin.once('data', resolve));
process.stdin.destroy();

const latencies = [];
let rawBytes = 0;
const start = performance.timeOrigin + performance.now();
for (let turn = 0; turn < Number(commitsText); turn++) {
  const session = ids[turn % ids.length];
  const messages = [
    message(`u-${worker}-${turn}`, 'user'),
    message(`a-${worker}-${turn}`, 'assistant'),
  ];
  for (const m of messages) rawBytes += Buffer.byteLength(JSON.stringify(m));
  const meta = {
    model: 'bench',
    usage: { inputTokens: 1200, outputTokens: 150, cacheReadTokens: 0, cacheWriteTokens: 0 },
  };
  const began = performance.now();
  const checkpoint = await store.commit(
    session,
    { messages, meta },
    { expectedHead: heads.get(session) },
  );
  latencies.push(performance.now() - began);
  heads.set(session, checkpoint.id);
}
const end = performance.timeOrigin + performance.now();
await store.close();
process.stdout.write(`${JSON.stringify({ latencies, start, end, rawBytes })}\n`);
