import { statSync } from 'node:fs';

/**
 * Serialises the write transactions of every store open on one file in this process. SQLite's
 * busy handler sleeps synchronously: were a second connection in the same process to wait on it
 * while the first is between two awaits of its transaction, the first could never finish (a
 * deadlock until the busy timeout). Across processes the busy handler is fine.
 */
export class FileWriteLock {
  static readonly #locks = new Map<string, FileWriteLock>();
  readonly #key: string;
  #users = 0;
  #tail: Promise<void> = Promise.resolve();

  private constructor(key: string) {
    this.#key = key;
  }

  /** The lock of the file at `path` (identified by device and inode, so links share it). */
  static acquire(path: string): FileWriteLock {
    const { dev, ino } = statSync(path);
    const key = `${dev}:${ino}`;
    const lock = FileWriteLock.#locks.get(key) ?? new FileWriteLock(key);
    FileWriteLock.#locks.set(key, lock);
    lock.#users += 1;
    return lock;
  }

  /** Runs `work` once every write queued before it has settled. */
  run<T>(work: () => Promise<T>): Promise<T> {
    const result = this.#tail.then(work);
    this.#tail = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }

  /** Gives the lock back; the last user removes it. */
  release(): void {
    this.#users -= 1;
    if (this.#users === 0) FileWriteLock.#locks.delete(this.#key);
  }
}
