import { execFile } from 'node:child_process';
import { chmod, chown, mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../src/index.js';
import { fileHash } from './inspect-file.js';
import { buildPackage } from './process-harness.js';
import { tempDir } from './turns.js';

const CHILD = join(dirname(fileURLToPath(import.meta.url)), 'children', 'unprivileged-store.mjs');
/** The user the child becomes when the test runs as root (nobody): chmod does not stop root. */
const NOBODY = 65534;
const isRoot = process.getuid?.() === 0;

/** What the child reports: how far it got, and the error that stopped it. */
interface ChildReport {
  readonly stage: 'open' | 'commit' | 'done' | 'cannot-drop';
  readonly name?: string;
  readonly code?: string;
  readonly field?: string;
  readonly path?: string;
  readonly problem?: string;
  readonly message: string;
}

// Without POSIX user ids (Windows) neither chmod nor dropping privileges means anything here.
describe.skipIf(typeof process.getuid !== 'function')(
  'a session database it may not write',
  {
    timeout: 60_000,
  },
  () => {
    let folder: Awaited<ReturnType<typeof tempDir>>;
    beforeAll(() => buildPackage(), 120_000);
    beforeEach(async () => {
      folder = await tempDir();
      // mkdtemp makes a 0700 folder: the unprivileged child must be able to reach into it.
      await chmod(folder.dir, 0o755);
    });
    afterEach(async () => {
      await folder.remove();
    });

    /** A folder the child's user owns (mode `mode`), with a store holding session `s` when asked. */
    async function place(name: string, withStore: boolean): Promise<{ dir: string; db: string }> {
      const dir = join(folder.dir, name);
      await mkdir(dir);
      const db = join(dir, 'mh.db');
      if (withStore) {
        const store = await openSqliteStore(db);
        await store.createSession({ id: 's' });
        await store.close();
      }
      if (isRoot) {
        await chown(dir, NOBODY, NOBODY);
        if (withStore) await chown(db, NOBODY, NOBODY);
      }
      return { dir, db };
    }

    /** Runs the child on `db` as nobody (as root) or as this user (whom chmod does stop). */
    async function asUnprivileged(
      db: string,
      action: 'open' | 'commit',
      skip: (note: string) => void,
    ): Promise<ChildReport> {
      const warm = join(folder.dir, `warm-${Math.random().toString(36).slice(2)}.db`);
      const { stdout } = await promisify(execFile)(process.execPath, [CHILD, warm, db, action]);
      const report = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as ChildReport;
      if (report.stage === 'cannot-drop')
        skip(
          `running as root and cannot become uid ${NOBODY} to test file modes: ${report.message}`,
        );
      return report;
    }

    it('writes as the unprivileged user when file and folder allow it (the control)', async ({
      skip,
    }) => {
      const { db } = await place('writable', true);
      expect(await asUnprivileged(db, 'commit', skip)).toMatchObject({ stage: 'done' });
    });

    it('refuses a read-only file at open: read-only, naming the path, the file untouched', async ({
      skip,
    }) => {
      const { db } = await place('file', true);
      await chmod(db, 0o444);
      const before = await fileHash(db);
      const report = await asUnprivileged(db, 'commit', skip);
      expect(report).toMatchObject({
        stage: 'open',
        name: 'SessionFileError',
        field: 'path',
        path: db,
        problem: 'read-only',
      });
      expect(report.message).toBe(`path: ${db}: is read-only (this process may not write it)`);
      expect(await fileHash(db)).toBe(before);
    });

    it('refuses a database in a read-only folder as read-only, never corrupt', async ({ skip }) => {
      const { dir, db } = await place('folder', true);
      await chmod(dir, 0o555);
      const report = await asUnprivileged(db, 'commit', skip);
      expect(report).toMatchObject({ stage: 'open', path: db, problem: 'read-only' });
      expect(report.message).toContain(db);
      expect(report.message).toContain(`folder ${dir} is read-only`);
    });

    it('refuses to create a database in a read-only folder', async ({ skip }) => {
      const { dir, db } = await place('empty-folder', false);
      await chmod(dir, 0o555);
      const report = await asUnprivileged(db, 'open', skip);
      expect(report).toMatchObject({ stage: 'open', path: db, problem: 'read-only' });
    });

    it('maps a write refused by SQLite (a stale read-only -shm) to the same typed error', async ({
      skip,
    }) => {
      // Another user's -shm left behind: file and folder are writable, so open cannot tell; SQLite
      // then opens the connection read-only and refuses the first write with SQLITE_READONLY.
      const { db } = await place('stale-shm', true);
      await writeFile(`${db}-shm`, '');
      await chmod(`${db}-shm`, 0o444);
      const report = await asUnprivileged(db, 'commit', skip);
      expect(report).toMatchObject({
        stage: 'commit',
        name: 'SessionFileError',
        path: db,
        problem: 'read-only',
      });
      expect(report.message).toContain(`${db}: is read-only`);
    });
  },
);
