import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { McpProtocolError } from '@mh/core';
import { expect } from 'vitest';
import { McpClient, type McpClientOptions } from '../src/index.js';

const here = fileURLToPath(new URL('.', import.meta.url));

/** Path of the misbehaving fake server script. */
export const FAKE_SERVER: string = join(here, 'servers', 'fake-server.mjs');

/** A fresh temp directory. */
export function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'mh-mcp-'));
}

/** A client of the fake server in `mode`, logging what it receives to the returned file. */
export function fakeClient(
  mode: string,
  options: McpClientOptions = {},
  env: Record<string, string> = {},
): { client: McpClient; logFile: string } {
  const logFile = join(tempDir(), 'log.jsonl');
  const client = new McpClient(
    'fake',
    { command: process.execPath, args: [FAKE_SERVER, mode], env: { FAKE_LOG: logFile, ...env } },
    { onWarning: () => {}, killGraceMs: 300, ...options },
  );
  return { client, logFile };
}

/** The JSON lines the fake server logged. */
export function readLog(logFile: string): Record<string, unknown>[] {
  try {
    return readFileSync(logFile, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  } catch {
    return [];
  }
}

/** True when `pid` is a live process (a zombie counts as dead). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/** Polls `check` every 20 ms until it is true or `ms` pass; returns its last value. */
export async function waitFor(check: () => boolean, ms = 3000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return check();
}

/** Path of the streamable HTTP fixture server (official server library behind node:http). */
export const HTTP_SERVER: string = join(here, 'servers', 'http-server.mjs');

/** A running HTTP fixture server. */
export interface HttpFixture {
  /** `http://127.0.0.1:PORT`. */
  readonly base: string;
  /** The server's pid. */
  readonly pid: number;
  /** Where it logs every JSON-RPC message it receives. */
  readonly logFile: string;
  /** Kills it (SIGKILL) and waits for its exit. */
  stop(): Promise<void>;
}

/**
 * Starts the HTTP fixture server on a free loopback port, or on `port` (a restart on the same
 * URL), logging to `logFile` (default: a new file). `resetInits` is the fixture's `reset-init`
 * switch, set before it listens: a control request made once it listens would leave a window in
 * which a client's handshake gets through.
 */
export async function startHttpServer(
  options: { port?: number; logFile?: string; resetInits?: number } = {},
): Promise<HttpFixture> {
  const logFile = options.logFile ?? join(tempDir(), 'log.jsonl');
  const port = options.port === undefined ? {} : { PORT: String(options.port) };
  const resets = options.resetInits === undefined ? {} : { RESET_INIT: String(options.resetInits) };
  const child = spawn(process.execPath, [HTTP_SERVER], {
    stdio: ['pipe', 'pipe', 'inherit'],
    env: { ...process.env, FAKE_LOG: logFile, ...port, ...resets },
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const listening = await new Promise<number>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`HTTP fixture exited early (${code})`)));
    child.stdout.once('data', (chunk: Buffer) => resolve(JSON.parse(String(chunk)).port as number));
  });
  return {
    base: `http://127.0.0.1:${listening}`,
    pid: child.pid as number,
    logFile,
    async stop() {
      child.kill('SIGKILL');
      await exited;
    },
  };
}

/** Flips the HTTP fixture's test switches (see test/servers/http-server.mjs). */
export async function control(server: HttpFixture, query: string): Promise<void> {
  const response = await fetch(`${server.base}/control?${query}`, { method: 'POST' });
  expect(response.status).toBe(204);
}

/** The `McpProtocolError` that `promise` rejects with; fails the test when it does not. */
export async function failure(promise: Promise<unknown>): Promise<McpProtocolError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(McpProtocolError.isInstance(error), String(error)).toBe(true);
  return error as McpProtocolError;
}
