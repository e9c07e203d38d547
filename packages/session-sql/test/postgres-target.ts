import { afterAll, beforeAll, describe, it } from 'vitest';
import {
  createDatabase,
  dropDatabase,
  postgresAvailability,
  startPostgres,
  type ThrowawayPostgres,
} from './support/throwaway-postgres.mjs';

/** The PostgreSQL a test file runs against. */
export interface PostgresHandle {
  /** The server's URL (database `postgres`). */
  readonly serverUrl: string;
  /** A database made for this file, dropped afterwards. */
  readonly databaseUrl: string;
  /** The server, when this file started its own (restart tests need one). */
  readonly server: ThrowawayPostgres | undefined;
}

/**
 * Declares a suite that needs PostgreSQL. It uses `MH_TEST_PG_URL` when set, or starts a
 * throwaway server when the binaries are installed (always, with `ownServer`: tests that stop
 * the server must not stop a shared one). Without PostgreSQL the suite is skipped with a message
 * on stderr, unless `MH_REQUIRE_POSTGRES=1` (CI), where that is a failing test.
 */
export function describePostgres(
  title: string,
  body: (postgres: () => PostgresHandle) => void,
  options: { readonly ownServer?: boolean } = {},
): void {
  const availability = postgresAvailability();
  const canStart =
    availability.kind === 'local' || (availability.kind === 'url' && availability.bin);
  const usable = options.ownServer ? canStart : availability.kind !== 'none';
  if (!usable) {
    const reason =
      availability.kind === 'none'
        ? availability.reason
        : 'this suite starts and stops its own server: install the PostgreSQL binaries';
    if (availability.required) {
      describe(title, () => {
        it('has PostgreSQL to run against (MH_REQUIRE_POSTGRES=1)', () => {
          throw new Error(reason);
        });
      });
      return;
    }
    process.stderr.write(`\n[skipped: ${title}] ${reason}\n`);
    describe.skip(title, () => body(() => ({}) as PostgresHandle));
    return;
  }
  let handle: PostgresHandle | undefined;
  describe(title, () => {
    beforeAll(async () => {
      const server =
        availability.kind === 'url' && !options.ownServer ? undefined : await startPostgres();
      const serverUrl = server?.url ?? (availability.kind === 'url' ? availability.url : '');
      handle = { serverUrl, databaseUrl: await createDatabase(serverUrl), server };
    }, 120_000);
    afterAll(async () => {
      if (!handle) return;
      if (handle.server) handle.server.remove();
      else await dropDatabase(handle.databaseUrl);
    }, 60_000);
    body(() => {
      if (!handle) throw new Error('PostgreSQL is not ready');
      return handle;
    });
  });
}
