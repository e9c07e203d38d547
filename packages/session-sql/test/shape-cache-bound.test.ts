import { join } from 'node:path';
import type { Message } from '@mh/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitTurn, prepareTurn } from '../src/commit-turn.js';
import { loadState } from '../src/load-branch.js';
import { keepShapes, MAX_SHAPES, type ShapeCache } from '../src/query-shapes.js';
import { insertSession } from '../src/session-ops.js';
import { requireBranch, requireSession } from '../src/session-rows.js';
import { openSqliteBackend, type SqliteBackend } from '../src/sqlite/backend.js';
import { tempDir } from './turns.js';

/**
 * A review of 82f3b3a found the shapes of the message and link inserts keyed by the turn's
 * message count, and never forgotten. Each keeps its SQL and kysely's tree (O(n) for n
 * messages): shapes for the sizes 1..1,000 held 139 MB, 1..3,000 held 1.2 GB. Now counts up to
 * 16 rows have shapes, larger turns are built anew, and a database keeps at most MAX_SHAPES.
 */
let folder: Awaited<ReturnType<typeof tempDir>>;
let backend: SqliteBackend;
beforeAll(async () => {
  folder = await tempDir();
  backend = await openSqliteBackend(join(folder.dir, 'shapes.db'), 1000);
});
afterAll(async () => {
  await backend.close();
  await folder.remove();
});

const user = (tag: string): Message => ({
  id: `m-${tag}`,
  role: 'user',
  content: [{ type: 'text', text: tag }],
});

describe('the shape cache of one database', () => {
  it('stays bounded when turns of many sizes are committed, and each one lands whole', async () => {
    const cache: ShapeCache = new Map();
    await backend.write((db) => insertSession(db, 's', undefined, 1));
    let head: string | null = null;
    for (let size = 1; size <= 80; size++) {
      const messages = Array.from({ length: size }, (_, at) => user(`${size}-${at}`));
      const prepared = prepareTurn('s', { messages, meta: {} }, head, undefined);
      const checkpoint = await backend.write((db) =>
        commitTurn(keepShapes(db, cache), prepared, 2, true),
      );
      expect(checkpoint.messageIds).toHaveLength(size);
      head = checkpoint.id;
    }
    // Three shapes per size up to 16 (messages, links) plus the fixed ones, never past the cap.
    expect(cache.size).toBeLessThanOrEqual(40);
    expect(cache.size).toBeLessThanOrEqual(MAX_SHAPES);
    const { messages } = await backend.read(async (db) => {
      const session = await requireSession(db, 's');
      return await loadState(db, session, await requireBranch(db, session, 'main'));
    });
    expect(messages).toHaveLength((80 * 81) / 2);
  });
});
