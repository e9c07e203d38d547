import { type ChildProcess, spawn } from 'node:child_process';
import { McpProtocolError } from '@mh/core';
import { childEnvironment } from './child-environment.js';
import { DEFAULT_MAX_LINE_BYTES, LineSplitter } from './line-splitter.js';
import { killGroup, trackGroup, untrackGroup } from './process-groups.js';
import { DEFAULT_STDERR_TAIL_BYTES, StderrTail } from './stderr-tail.js';
import type { StdioServerParams } from './stdio-server-params.js';

/** How long to keep reading stdout after the server exited, in ms. */
const STDOUT_DRAIN_MS = 50;

/** Limits of one stdio connection. */
export interface StdioProcessOptions {
  /** Longest accepted stdout line, in bytes; a longer one fails the connection. Default 16 MiB. */
  readonly maxLineBytes?: number;
  /** Bytes of stderr kept for error messages. Default 8 KiB. */
  readonly stderrTailBytes?: number;
  /** Wait after ending stdin, and again after SIGTERM, before escalating, in ms. Default 1000. */
  readonly killGraceMs?: number;
}

/** Callbacks of a running stdio connection. */
export interface StdioProcessHandlers {
  /** One parsed JSON value per stdout line. */
  onMessage(message: unknown): void;
  /** Called once when the connection ends: `error` is set unless we closed it ourselves. */
  onClose(error: McpProtocolError | undefined): void;
}

/**
 * A server process speaking newline-delimited JSON over stdio, in its own process group. When the
 * server exits, overflows a line or is closed, the connection ends at once (not when every holder
 * of its stdout lets go) and the whole group is killed, grandchildren included.
 */
export class StdioProcess {
  readonly #server: string;
  readonly #params: StdioServerParams;
  readonly #maxLineBytes: number;
  readonly #graceMs: number;
  readonly #tail: StderrTail;
  #child: ChildProcess | undefined;
  #handlers: StdioProcessHandlers | undefined;
  #ended = false;
  #closing = false;
  #nonJsonLines = 0;
  #exited: Promise<void> = Promise.resolve();

  /** Prepares (does not start) the server `server` described by `params`. */
  constructor(server: string, params: StdioServerParams, options: StdioProcessOptions = {}) {
    this.#server = server;
    this.#params = params;
    this.#maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
    this.#graceMs = options.killGraceMs ?? 1000;
    this.#tail = new StderrTail(options.stderrTailBytes ?? DEFAULT_STDERR_TAIL_BYTES);
  }

  /** The child's pid (also its process group id) once started. */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  /** The last bytes the server wrote to stderr. */
  get stderrTail(): string {
    return this.#tail.text();
  }

  /** How many stdout lines were not JSON (skipped, not fatal). */
  get nonJsonLines(): number {
    return this.#nonJsonLines;
  }

  /** Resolves when the server process has exited (immediately when it never started). */
  get exited(): Promise<void> {
    return this.#exited;
  }

  /** Spawns the server; rejects with `McpProtocolError` when it cannot be started. */
  start(handlers: StdioProcessHandlers): Promise<void> {
    this.#handlers = handlers;
    const child = spawn(this.#params.command, [...(this.#params.args ?? [])], {
      cwd: this.#params.cwd ?? process.cwd(),
      env: childEnvironment(this.#params.env),
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
      windowsHide: true,
    });
    this.#child = child;
    this.#exited = new Promise((resolve) => {
      child.once('exit', () => resolve());
      child.once('error', () => resolve());
    });
    const splitter = new LineSplitter(this.#maxLineBytes);
    child.stdout?.on('data', (chunk: Buffer) => this.#onStdout(splitter, chunk));
    child.stderr?.on('data', (chunk: Buffer) => this.#tail.push(chunk));
    child.stdin?.on('error', () => {});
    child.once('exit', (code, signal) => void this.#onExit(code, signal));
    return new Promise((resolve, reject) => {
      child.once('spawn', () => {
        if (child.pid !== undefined) trackGroup(child.pid);
        resolve();
      });
      child.once('error', (error) => {
        const failure = this.#error(
          `cannot start ${this.#params.command}: ${error.message}`,
          error,
        );
        this.#end(failure);
        reject(failure);
      });
    });
  }

  /** Writes one message as a JSON line; rejects when the connection has ended. */
  send(message: unknown): Promise<void> {
    const stdin = this.#child?.stdin;
    if (this.#ended || !stdin || stdin.destroyed) {
      return Promise.reject(this.#error('connection closed'));
    }
    return new Promise((resolve, reject) => {
      stdin.write(`${JSON.stringify(message)}\n`, (error) => {
        if (error) reject(this.#error(`write failed: ${error.message}`, error));
        else resolve();
      });
    });
  }

  /**
   * Ends the connection: closes stdin, then SIGTERMs and finally SIGKILLs the process group, each
   * after the grace period. Resolves once the server has exited.
   */
  async close(): Promise<void> {
    const child = this.#child;
    if (!child) return;
    this.#closing = true;
    this.#end(undefined);
    child.stdin?.end();
    if (child.exitCode === null && child.signalCode === null) {
      if (!(await settlesWithin(this.#exited, this.#graceMs)) && child.pid !== undefined) {
        killGroup(child.pid, 'SIGTERM');
        if (!(await settlesWithin(this.#exited, this.#graceMs))) killGroup(child.pid, 'SIGKILL');
      }
      await this.#exited;
    }
    if (child.pid !== undefined) this.#reapGroup(child.pid);
  }

  #onStdout(splitter: LineSplitter, chunk: Buffer): void {
    if (this.#ended) return;
    const lines = splitter.push(chunk);
    if (lines === undefined) {
      const mib = (this.#maxLineBytes / 1024 / 1024).toFixed(0);
      this.#end(this.#error(`sent a line longer than ${mib} MiB; connection closed`));
      const pid = this.#child?.pid;
      if (pid !== undefined) this.#reapGroup(pid);
      return;
    }
    for (const line of lines) {
      if (this.#ended) return;
      if (line.trim() === '') continue;
      let message: unknown;
      try {
        message = JSON.parse(line);
      } catch {
        this.#nonJsonLines += 1;
        continue;
      }
      this.#handlers?.onMessage(message);
    }
  }

  async #onExit(code: number | null, signal: NodeJS.Signals | null): Promise<void> {
    // Read what the server wrote just before exiting, but do not wait for a grandchild that
    // still holds stdout: at most STDOUT_DRAIN_MS.
    const stdout = this.#child?.stdout;
    if (stdout && !stdout.readableEnded) {
      await settlesWithin(
        new Promise<void>((resolve) => stdout.once('end', () => resolve())),
        STDOUT_DRAIN_MS,
      );
    }
    const how = signal ? `signal ${signal}` : `code ${code}`;
    if (!this.#closing) this.#end(this.#error(`server process exited (${how})`));
    const pid = this.#child?.pid;
    // A grandchild may still hold stdout open: stop waiting for it and kill the group.
    this.#child?.stdout?.destroy();
    this.#child?.stderr?.destroy();
    if (pid !== undefined) this.#reapGroup(pid);
  }

  #reapGroup(pid: number): void {
    killGroup(pid, 'SIGKILL');
    untrackGroup(pid);
  }

  #end(error: McpProtocolError | undefined): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#handlers?.onClose(error);
  }

  #error(problem: string, cause?: unknown): McpProtocolError {
    const tail = this.#tail.text().trim();
    const suffix = tail ? `\n--- stderr (last ${tail.length} chars) ---\n${tail}` : '';
    return new McpProtocolError(this.#server, `${problem}${suffix}`, { cause });
  }
}

function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    void promise.then(() => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}
