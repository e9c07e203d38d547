// A deliberately misbehaving MCP server for tests. Usage: node fake-server.mjs <mode>
// Modes: ok, bad-version, garbage, stderr-spam, paged. Tools misbehave on call (crash, hang, ...).
// Every message received is appended as a JSON line to $FAKE_LOG when set.
import { spawn } from 'node:child_process';
import { appendFileSync, writeSync } from 'node:fs';
import { createInterface } from 'node:readline';

const mode = process.argv[2] ?? 'ok';
const log = (entry) => {
  if (process.env.FAKE_LOG) appendFileSync(process.env.FAKE_LOG, `${JSON.stringify(entry)}\n`);
};
log({ pid: process.pid });
const send = (message) => writeSync(1, `${JSON.stringify(message)}\n`);
const text = (value) => ({ content: [{ type: 'text', text: value }] });
const obj = (properties = {}, required = []) => ({ type: 'object', properties, required });

const tools = [
  {
    name: 'echo',
    inputSchema: obj({ text: { type: 'string' } }),
    annotations: { readOnlyHint: true },
  },
  { name: 'add', inputSchema: obj({ a: { type: 'number' }, b: { type: 'number' } }, ['a', 'b']) },
  { name: 'env', inputSchema: obj() },
  { name: 'hang', inputSchema: obj() },
  { name: 'crash', inputSchema: obj() },
  { name: 'big', inputSchema: obj() },
  { name: 'grandchild', inputSchema: obj() },
  { name: 'ask', inputSchema: obj() },
  { name: 'image', inputSchema: obj() },
  { name: 'fail', inputSchema: obj() },
  { name: 'no type', inputSchema: { properties: {} } },
  { name: 'bad_schema', inputSchema: { type: 'object', properties: { a: { type: 'nonsense' } } } },
];

const pending = new Map();
let nextId = 1;
const askClient = (method) =>
  new Promise((resolve) => {
    const id = `s${nextId++}`;
    pending.set(id, resolve);
    send({ jsonrpc: '2.0', id, method });
  });

async function call(name, args) {
  switch (name) {
    case 'echo':
      return text(String(args.text ?? ''));
    case 'add':
      return text(String(args.a + args.b));
    case 'env':
      return text(JSON.stringify(process.env));
    case 'hang':
      return new Promise(() => {});
    case 'crash':
      writeSync(2, 'fatal: simulated crash in the middle of a call\n');
      process.exit(3);
      break;
    case 'big':
      writeSync(
        1,
        `{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"${'x'.repeat(20 * 1024 * 1024)}"}}\n`,
      );
      return new Promise(() => {});
    case 'grandchild': {
      const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], {
        stdio: ['ignore', 'inherit', 'ignore'],
      });
      log({ grandchild: child.pid });
      setTimeout(() => process.exit(0), 50);
      return new Promise(() => {});
    }
    case 'ask': {
      const ping = await askClient('ping');
      const other = await askClient('sampling/createMessage');
      return text(JSON.stringify({ ping, other }));
    }
    case 'image':
      return {
        content: [
          { type: 'text', text: 'a picture' },
          { type: 'image', mimeType: 'image/png', data: Buffer.alloc(12345).toString('base64') },
          { type: 'audio', mimeType: 'audio/wav', data: Buffer.alloc(10).toString('base64') },
        ],
      };
    case 'fail':
      return { ...text('it broke'), isError: true };
    default:
      return { ...text(`unknown tool ${name}`), isError: true };
  }
}

function toolsPage(cursor) {
  if (mode !== 'paged') return { tools };
  if (cursor === undefined) return { tools: [tools[0]], nextCursor: 'p2' };
  if (cursor === 'p2') return { tools: [tools[1]], nextCursor: 'p3' };
  return { tools: [tools[2]], nextCursor: 'p2' };
}

async function handle(message) {
  log(message);
  if (message.id !== undefined && message.method === undefined) {
    pending.get(message.id)?.(message);
    return;
  }
  if (message.id === undefined) return;
  const reply = (result) => send({ jsonrpc: '2.0', id: message.id, result });
  if (mode === 'stderr-spam') writeSync(2, `${'noise '.repeat(200_000)}\nlast words of stderr\n`);
  if (mode === 'garbage') writeSync(1, 'this is not json\n{"broken": \n\n');
  switch (message.method) {
    case 'initialize':
      return reply({
        protocolVersion: mode === 'bad-version' ? '1999-01-01' : message.params.protocolVersion,
        capabilities: { tools: { listChanged: true } },
        serverInfo: { name: 'fake', version: '1.0.0' },
      });
    case 'tools/list':
      return reply(toolsPage(message.params?.cursor));
    case 'tools/call':
      return reply(await call(message.params.name, message.params.arguments ?? {}));
    case 'ping':
      return reply({});
    default:
      return send({ jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'nope' } });
  }
}

createInterface({ input: process.stdin }).on('line', (line) => {
  if (line.trim()) void handle(JSON.parse(line));
});
process.stdin.on('end', () => process.exit(0));
