import { ConfigError, PERMISSIONS, type Permission } from '@mh/core';
import { MAX_TIMEOUT_MS } from '@mh/core/internal';

/** The names a provider accepts for a tool: letters, digits, `_` and `-`, 1 to 64 characters. */
export const TOOL_NAME_PATTERN: RegExp = /^[a-zA-Z0-9_-]{1,64}$/;

/** The fields every tool has, whether from `defineTool`, MCP or written by hand. */
export interface ToolFields {
  /** Candidate tool name. */
  readonly name: unknown;
  /** Candidate description. */
  readonly description: unknown;
  /** Candidate permission. */
  readonly permission: unknown;
  /** Candidate per-call time limit in milliseconds. */
  readonly timeoutMs?: unknown;
  /** Candidate idempotence flag. */
  readonly idempotent?: unknown;
  /** Candidate determinism flag. */
  readonly deterministic?: unknown;
  /** Candidate approval rule. */
  readonly needsApproval?: unknown;
  /** Candidate run function. */
  readonly run: unknown;
}

/**
 * Throws `ConfigError` naming the first invalid field. Tools are written by users, so a bad one
 * fails at definition time instead of reaching a model.
 */
export function assertToolFields(fields: ToolFields): void {
  const { name, description, permission, timeoutMs, idempotent, deterministic, run } = fields;
  if (typeof name !== 'string' || !TOOL_NAME_PATTERN.test(name)) {
    throw new ConfigError(
      'name',
      `expected 1-64 characters of [a-zA-Z0-9_-], got ${describeValue(name)}`,
    );
  }
  if (typeof description !== 'string' || description.trim() === '') {
    throw new ConfigError(
      'description',
      `expected a non-empty string, got ${describeValue(description)}`,
    );
  }
  if (!isPermission(permission)) {
    throw new ConfigError(
      'permission',
      `expected one of ${PERMISSIONS.join(', ')}, got ${describeValue(permission)}`,
    );
  }
  if (
    timeoutMs !== undefined &&
    (typeof timeoutMs !== 'number' ||
      !Number.isFinite(timeoutMs) ||
      timeoutMs <= 0 ||
      timeoutMs > MAX_TIMEOUT_MS)
  ) {
    throw new ConfigError(
      'timeoutMs',
      `expected a positive number up to ${MAX_TIMEOUT_MS} ms, got ${describeValue(timeoutMs)}`,
    );
  }
  if (idempotent !== undefined && typeof idempotent !== 'boolean') {
    throw new ConfigError('idempotent', `expected a boolean, got ${describeValue(idempotent)}`);
  }
  if (deterministic !== undefined && typeof deterministic !== 'boolean') {
    throw new ConfigError(
      'deterministic',
      `expected a boolean, got ${describeValue(deterministic)}`,
    );
  }
  const { needsApproval } = fields;
  if (
    needsApproval !== undefined &&
    typeof needsApproval !== 'boolean' &&
    typeof needsApproval !== 'function'
  ) {
    throw new ConfigError(
      'needsApproval',
      `expected a boolean or a function, got ${describeValue(needsApproval)}`,
    );
  }
  if (typeof run !== 'function') {
    throw new ConfigError('run', `expected a function, got ${describeValue(run)}`);
  }
}

/** True when `value` is one of core's permissions. */
export function isPermission(value: unknown): value is Permission {
  return typeof value === 'string' && (PERMISSIONS as readonly string[]).includes(value);
}

/** A short, printable description of a bad value for an error message. */
export function describeValue(value: unknown): string {
  if (typeof value === 'string')
    return JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);
  if (typeof value === 'function') return 'a function';
  if (Array.isArray(value)) return 'an array';
  if (value === null) return 'null';
  return typeof value === 'object' ? 'an object' : String(value);
}
