// MCP client overhead and crash detection, over stdio and streamable HTTP:
// 1. round-trip latency of a `tools/call` (echo) through McpClient vs the same call made directly
//    with @modelcontextprotocol/client (its own stdio / streamable HTTP transport), median and p90
//    of CALLS calls each, interleaved in rounds so machine load hits both alike;
// 2. time from a server crash (SIGKILL of its process) to the failure of a pending call, median
//    of CRASHES crashes, through McpClient; the library's own transports are tried too (bounded by
//    LIB_TIMEOUT_MS, since a pending call may only fail at its timeout).
// Servers: the fake stdio server and the HTTP fixture (official server library) of the tests.
// Run against dist: pnpm --filter @mh/mcp bench   (after `tsc -b`; CALLS=… CRASHES=… to resize)
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { McpClient } from '../dist/index.js';

const CALLS = Number(process.env.CALLS ?? 1000);
const CRASHES = Number(process.env.CRASHES ?? 20);
const LIB_CRASHES = Number(process.env.LIB_CRASHES ?? 3);
const LIB_TIMEOUT_MS = Number(process.env.LIB_TIMEOUT_MS ?? 5000);
const ROUNDS = 10;
const FAKE = fileURLToPath(new URL('../test/servers/fake-server.mjs', import.meta.url));
const HTTP = fileURLToPath(new URL('../test/servers/http-server.mjs', import.meta.url));

const quiet = { onWarning: () => {}, killGraceMs: 200 };
const median = (values) => quantile(values, 0.5);
function quantile(values, q) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}
const ms = (value) => (value === undefined ? 'n/a' : `${value.toFixed(3)} ms`);

async function startHttp() {
  const child = spawn(process.execPath, [HTTP], { stdio: ['pipe', 'pipe', 'ignore'] });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const port = await new Promise((resolve) =>
    child.stdout.once('data', (chunk) => resolve(JSON.parse(String(chunk)).port)),
  );
  return { url: `http://127.0.0.1:${port}/mcp`, child, exited };
}

async function libraryClient(transport) {
  const client = new Client({ name: 'bench', version: '0' }, { capabilities: {} });
  client.onerror = () => {};
  await client.connect(transport);
  return client;
}

async function timeCalls(call, count, into) {
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    await call(i);
    into.push(performance.now() - started);
  }
}

async function latency(kind) {
  const http = kind === 'http' ? [await startHttp(), await startHttp()] : [];
  const ours = new McpClient(
    'bench',
    kind === 'http' ? { url: http[0].url } : { command: process.execPath, args: [FAKE, 'ok'] },
    quiet,
  );
  await ours.connect();
  const direct = await libraryClient(
    kind === 'http'
      ? new StreamableHTTPClientTransport(new URL(http[1].url))
      : new StdioClientTransport({
          command: process.execPath,
          args: [FAKE, 'ok'],
          stderr: 'ignore',
        }),
  );
  const args = (i) => ({ text: `ping ${i}` });
  const warm = Math.min(100, CALLS);
  await timeCalls((i) => ours.callTool('echo', args(i)), warm, []);
  await timeCalls((i) => direct.callTool({ name: 'echo', arguments: args(i) }), warm, []);
  const oursTimes = [];
  const directTimes = [];
  for (let round = 0; round < ROUNDS; round++) {
    const count = Math.ceil(CALLS / ROUNDS);
    await timeCalls((i) => ours.callTool('echo', args(i)), count, oursTimes);
    await timeCalls(
      (i) => direct.callTool({ name: 'echo', arguments: args(i) }),
      count,
      directTimes,
    );
  }
  await ours.close();
  await direct.close();
  for (const server of http) {
    server.child.kill('SIGKILL');
    await server.exited;
  }
  return { ours: oursTimes, direct: directTimes };
}

/** Time from SIGKILL of the server to the rejection of a pending `hang` call. */
async function crashOnce(kind, through) {
  const http = kind === 'http' ? await startHttp() : undefined;
  let pid;
  let call;
  let close;
  if (through === 'ours') {
    const client = new McpClient(
      'bench',
      http ? { url: http.url } : { command: process.execPath, args: [FAKE, 'ok'] },
      quiet,
    );
    await client.connect();
    pid = http ? http.child.pid : client.pid;
    call = () => client.callTool('hang', {}, { timeoutMs: LIB_TIMEOUT_MS });
    close = () => client.close();
  } else {
    const transport = http
      ? new StreamableHTTPClientTransport(new URL(http.url))
      : new StdioClientTransport({
          command: process.execPath,
          args: [FAKE, 'ok'],
          stderr: 'ignore',
        });
    const client = await libraryClient(transport);
    pid = http ? http.child.pid : transport.pid;
    call = () => client.callTool({ name: 'hang', arguments: {} }, { timeout: LIB_TIMEOUT_MS });
    close = () => client.close();
  }
  const pending = call().then(
    () => 'answered',
    (error) => error,
  );
  await new Promise((resolve) => setTimeout(resolve, 100)); // the call is in flight
  const killed = performance.now();
  process.kill(pid, 'SIGKILL');
  const outcome = await pending;
  const elapsed = performance.now() - killed;
  await close().catch(() => {});
  if (http) await http.exited;
  const timedOut = String(outcome?.message ?? outcome).match(/timed out|timeout/i) !== null;
  return { elapsed, timedOut };
}

async function crashes(kind, through, count) {
  const times = [];
  let timeouts = 0;
  for (let i = 0; i < count; i++) {
    const { elapsed, timedOut } = await crashOnce(kind, through);
    times.push(elapsed);
    if (timedOut) timeouts++;
  }
  return { times, timeouts };
}

console.log(
  `MCP round trip (tools/call echo): ${CALLS} calls each, interleaved in ${ROUNDS} rounds`,
);
console.log('transport  client              median      p90         overhead (median)');
for (const kind of ['stdio', 'http']) {
  const { ours, direct } = await latency(kind);
  const overhead = median(ours) - median(direct);
  console.log(
    `${kind.padEnd(10)} McpClient           ${ms(median(ours)).padEnd(11)} ${ms(quantile(ours, 0.9)).padEnd(11)} ${ms(overhead)}`,
  );
  console.log(
    `${kind.padEnd(10)} library directly    ${ms(median(direct)).padEnd(11)} ${ms(quantile(direct, 0.9))}`,
  );
}

console.log(`\nServer crash (SIGKILL) -> pending call fails (limit ${LIB_TIMEOUT_MS} ms per call)`);
console.log('transport  client              runs  median      max         failed only at timeout');
for (const kind of ['stdio', 'http']) {
  for (const [through, count] of [
    ['ours', CRASHES],
    ['library', LIB_CRASHES],
  ]) {
    const { times, timeouts } = await crashes(kind, through, count);
    const name = through === 'ours' ? 'McpClient' : 'library directly';
    console.log(
      `${kind.padEnd(10)} ${name.padEnd(19)} ${String(count).padEnd(5)} ${ms(median(times)).padEnd(11)} ${ms(Math.max(...times)).padEnd(11)} ${timeouts}`,
    );
  }
}
