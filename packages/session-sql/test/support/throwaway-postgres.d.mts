/** A running throwaway server. */
export interface ThrowawayPostgres {
  /** `postgres://mh@127.0.0.1:PORT/postgres`. */
  readonly url: string;
  readonly port: number;
  /** Its temporary folder (data directory, socket, log). */
  readonly dir: string;
  /** Stops it: `fast` shuts down cleanly, `immediate` is a crash (WAL replay on next start). */
  stop(mode?: 'fast' | 'immediate'): void;
  /** Starts it again on the same port. */
  start(): void;
  /** Stops it and deletes its files. */
  remove(): void;
}

/** Where tests find PostgreSQL. */
export type PostgresAvailability =
  | { kind: 'url'; url: string; required: boolean; bin: string | undefined }
  | { kind: 'local'; bin: string; required: boolean }
  | { kind: 'none'; required: boolean; reason: string };

export function findPostgresBin(): string | undefined;
export function startPostgres(options?: {
  bin?: string;
  maxConnections?: number;
  stopOnExit?: boolean;
}): Promise<ThrowawayPostgres>;
export function createDatabase(url: string, prefix?: string): Promise<string>;
export function dropDatabase(url: string): Promise<void>;
export function postgresAvailability(): PostgresAvailability;
