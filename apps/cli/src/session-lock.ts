import { closeSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { UsageError } from './usage-error.js';

/**
 * Another live mh on this host runs the session: a second writer would take its unfinished
 * answer for a crash and pay for it again. A `UsageError`, so exit code 2: this command line
 * cannot run now.
 */
export class SessionInUseError extends UsageError {
  /** The process that holds the session; `undefined` while it is still writing its lock. */
  readonly pid: number | undefined;

  constructor(sessionId: string, pid: number | undefined) {
    super(
      `session ${sessionId} is in use by another mh (pid ${pid ?? 'starting'}); wait for it to finish`,
    );
    this.pid = pid;
  }
}

/** A lock file written but not yet filled in is another mh starting, for this long at most. */
const FILLING_MS = 5_000;

/** Whether process `pid` runs on this host; EPERM (someone else's process) counts as alive. */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The pid a lock file names, `undefined` for none (unreadable, half written), `null` if gone. */
function holder(path: string): { pid: number | undefined; text: string } | null {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  try {
    const pid = (JSON.parse(text) as { pid?: unknown }).pid;
    return { pid: Number.isSafeInteger(pid) ? (pid as number) : undefined, text };
  } catch {
    return { pid: undefined, text };
  }
}

/** Removes a stale lock, unless another mh replaced it since it was read. */
function removeStale(path: string, text: string): void {
  try {
    if (readFileSync(path, 'utf8') === text) unlinkSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

/** An advisory lock on one session of a SQLite database, held by this process. */
export interface SessionLock {
  /** Removes the lock file (idempotent); also done on any `process.exit`. */
  release(): void;
}

/**
 * Locks session `sessionId` of the SQLite file `db` for this process: `<db>.<sessionId>.lock`,
 * created exclusively, holding `{ pid, startedAt }`. A lock whose process is alive on this host
 * is refused with `SessionInUseError`; one whose process died (a crash, kill -9) is taken over,
 * so the crashed turn is finished by the next mh, as before. The file goes on every exit that
 * runs `exit` handlers (end, error, `process.exit`); a kill leaves it for the next mh to take.
 * PostgreSQL sessions, shared across machines, rely on the store's conflict errors instead.
 */
export function lockSession(db: string, sessionId: string): SessionLock {
  const path = `${db}.${sessionId}.lock`;
  const content = JSON.stringify({ pid: process.pid, startedAt: new Date().toISOString() });
  for (let attempt = 0; ; attempt++) {
    try {
      const fd = openSync(path, 'wx');
      try {
        writeSync(fd, content);
      } finally {
        closeSync(fd);
      }
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= 5) throw error;
    }
    const found = holder(path);
    if (found === null) continue;
    if (found.pid === undefined) {
      // Half written by an mh starting right now, or left so by a crash long ago.
      if (Date.now() - statSync(path).mtimeMs < FILLING_MS)
        throw new SessionInUseError(sessionId, undefined);
    } else if (found.pid !== process.pid && isAlive(found.pid)) {
      throw new SessionInUseError(sessionId, found.pid);
    }
    removeStale(path, found.text);
  }
  let held = true;
  const release = (): void => {
    if (!held) return;
    held = false;
    process.off('exit', release);
    try {
      // Only our own lock: never one another mh took over.
      if (readFileSync(path, 'utf8') === content) unlinkSync(path);
    } catch {
      // Already gone: nothing to release.
    }
  };
  process.on('exit', release);
  return { release };
}
