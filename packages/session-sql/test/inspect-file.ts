import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import Database from 'better-sqlite3';

/** Row counts of the store's content tables, read on a separate read-only connection. */
export function rowCounts(path: string): Record<string, number> {
  const database = new Database(path, { readonly: true });
  try {
    const counts: Record<string, number> = {};
    for (const table of ['messages', 'checkpoints', 'checkpoint_messages', 'branches']) {
      counts[table] = database.prepare(`select count(*) from ${table}`).pluck().get() as number;
    }
    return counts;
  } finally {
    database.close();
  }
}

/** `PRAGMA integrity_check` and `foreign_key_check` of a file. */
export function checkFile(path: string): { integrity: string; foreignKeyViolations: number } {
  const database = new Database(path, { readonly: true });
  try {
    return {
      integrity: String(database.pragma('integrity_check', { simple: true })),
      foreignKeyViolations: (database.pragma('foreign_key_check') as unknown[]).length,
    };
  } finally {
    database.close();
  }
}

/** sha-256 of a file's bytes. */
export async function fileHash(path: string): Promise<string> {
  return createHash('sha256')
    .update(await readFile(path))
    .digest('hex');
}
