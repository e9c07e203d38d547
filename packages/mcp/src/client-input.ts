import { ConfigError } from '@mh/core';
import { assertOptions } from '@mh/core/internal';
import type { HttpServerParams } from './http-server-params.js';
import type { StdioServerParams } from './stdio-server-params.js';
import { sanitizeNamePart } from './tool-name.js';

/** How to reach a server: a command to start (stdio) or a URL (streamable HTTP). */
export type McpServerParams = StdioServerParams | HttpServerParams;

/** Options of an `McpClient`. */
export interface McpClientOptions {
  /** Limit for the handshake, in milliseconds. Default 30 000. */
  readonly initTimeoutMs?: number;
  /** Default per-request limit, in milliseconds. Default 60 000. */
  readonly callTimeoutMs?: number;
  /**
   * Longest accepted message, in bytes: a stdout line (stdio), a JSON body or an SSE line (HTTP).
   * Default 16 MiB.
   */
  readonly maxLineBytes?: number;
  /** Bytes of server stderr kept for error messages (stdio). Default 8 KiB. */
  readonly stderrTailBytes?: number;
  /**
   * Grace period of each shutdown step (stdin EOF, SIGTERM; for HTTP the session DELETE), in
   * milliseconds. Default 1000.
   */
  readonly killGraceMs?: number;
  /** At most this many pages of a list are read. Default 64. */
  readonly maxPages?: number;
  /** Receives warnings (dropped entries, repeated cursors). Default: `process.emitWarning`. */
  readonly onWarning?: (message: string) => void;
  /**
   * `'interrupt'`: declare the elicitation capability (form mode), so the server may ask the user
   * for input during a tool call (`elicitation/create`). Such a request goes to the one call in
   * flight: a registered tool turns it into `ctx.interrupt(message)` with the requested schema,
   * so the run ends `interrupted` with the question, and on resume the call is sent again and the
   * server's elicitation answered with the stored answer. With several calls in flight, or none,
   * and without this option (the capability is then not declared), requests are declined.
   */
  readonly elicitation?: 'interrupt';
}

const OPTION_KEYS = [
  'initTimeoutMs',
  'callTimeoutMs',
  'maxLineBytes',
  'stderrTailBytes',
  'killGraceMs',
  'maxPages',
  'onWarning',
  'elicitation',
];

const POSITIVE = [
  'initTimeoutMs',
  'callTimeoutMs',
  'maxLineBytes',
  'killGraceMs',
  'maxPages',
] as const;

/** Throws `ConfigError` naming the option that is unknown or not a number > 0. */
export function checkOptions(options: McpClientOptions): void {
  assertOptions(options, OPTION_KEYS, 'options');
  for (const key of POSITIVE) {
    const value = options[key];
    if (value !== undefined && (!Number.isFinite(value) || value <= 0)) {
      throw new ConfigError(`options.${key}`, `expected a number > 0, got ${String(value)}`);
    }
  }
  if (options.onWarning !== undefined && typeof options.onWarning !== 'function') {
    throw new ConfigError('options.onWarning', 'expected a function');
  }
  if (options.elicitation !== undefined && options.elicitation !== 'interrupt') {
    throw new ConfigError(
      'options.elicitation',
      `expected 'interrupt', got ${JSON.stringify(options.elicitation)}`,
    );
  }
}

/**
 * Throws `ConfigError` on `name` unless it is a non-empty string whose tool-name form (see
 * `mcpToolName`) has no `__` and does not end in `_`: the server's tools are named
 * `name__tool`, so `a__b__c` could be server `a`'s tool `b__c` and two servers' tools could
 * share a name.
 */
export function checkName(name: unknown): void {
  if (typeof name !== 'string' || name === '') throw new ConfigError('name', 'expected a name');
  const part = sanitizeNamePart(name);
  if (part.includes('__') || part.endsWith('_'))
    throw new ConfigError(
      'name',
      `expected no '__' and no final '_' (tools are named NAME__TOOL), got ${JSON.stringify(name)}${part === name ? '' : ` (${part} in tool names)`}`,
    );
}

/** Throws `ConfigError` naming the field of `params` that is missing or malformed. */
export function checkParams(params: McpServerParams): void {
  if (typeof params !== 'object' || params === null) {
    throw new ConfigError('params', 'expected { command, args } or { url }');
  }
  if ('url' in params) {
    assertOptions(params, ['url', 'headers'], 'params');
    if (
      typeof params.url !== 'string' ||
      !/^https?:\/\//i.test(params.url) ||
      !URL.canParse(params.url)
    ) {
      throw new ConfigError(
        'params.url',
        `expected an http:// or https:// URL, got ${String(params.url)}`,
      );
    }
    for (const [key, value] of Object.entries(params.headers ?? {})) {
      if (typeof value !== 'string')
        throw new ConfigError(`params.headers.${key}`, 'expected a string');
    }
    return;
  }
  assertOptions(params, ['command', 'args', 'env', 'cwd'], 'params');
  if (typeof params.command !== 'string' || params.command === '') {
    throw new ConfigError('params.command', 'expected a command');
  }
  // Checked here, not at spawn: `args: 'a b'` would otherwise fail only at connect().
  if (params.args !== undefined) {
    if (!Array.isArray(params.args))
      throw new ConfigError('params.args', 'expected an array of strings');
    params.args.forEach((arg, index) => {
      if (typeof arg !== 'string')
        throw new ConfigError(`params.args[${index}]`, 'expected a string');
    });
  }
  if (params.env !== undefined) {
    if (typeof params.env !== 'object' || params.env === null || Array.isArray(params.env))
      throw new ConfigError('params.env', 'expected an object of strings');
    for (const [key, value] of Object.entries(params.env))
      if (typeof value !== 'string')
        throw new ConfigError(`params.env.${key}`, 'expected a string');
  }
  if (params.cwd !== undefined && (typeof params.cwd !== 'string' || params.cwd === ''))
    throw new ConfigError('params.cwd', 'expected a directory path');
}
