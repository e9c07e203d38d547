import { ConfigError } from '@mh/core';

/** Whether `value` looks like a PostgreSQL URL (`postgres://…` or `postgresql://…`). */
export function isPostgresUrl(value: string): boolean {
  return /^postgres(ql)?:\/\//i.test(value);
}

/**
 * Checks a PostgreSQL connection URL and returns it without its password, for messages: the
 * store names the server it could not reach, never the secret it used.
 *
 * @example
 * ```ts
 * redactConnectionString('postgres://app:secret@db.internal:5432/agents');
 * // 'postgres://app@db.internal:5432/agents'
 * ```
 */
export function redactConnectionString(connectionString: string): string {
  if (typeof connectionString !== 'string' || !isPostgresUrl(connectionString)) {
    throw new ConfigError('connectionString', 'expected a URL postgres://user@host:port/database');
  }
  let url: URL;
  try {
    url = new URL(connectionString);
  } catch {
    throw new ConfigError('connectionString', 'is not a valid URL');
  }
  url.password = '';
  return url.toString();
}
