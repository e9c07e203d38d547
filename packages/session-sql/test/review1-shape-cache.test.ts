import { join } from 'node:path';
import type { Message } from '@mh/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitTurn, prepareTurn } from '../src/commit-turn.js';
import { keepShapes, type ShapeCache } from '../src/query-shapes.js';
import { insertSession } from '../src/session-ops.js';
import { openSqliteBackend, type SqliteBackend } from '../src/sqlite/backend.js';
import { tempDir } from './turns.js';

/**
 * Review of 82f3b3a: the shapes of the message and link inserts are keyed by the turn's message
 * count, and a database's cache never forgets one. Each shape keeps its SQL and kysely's tree
 * (O(n) for n messages), so turns of many sizes grow the store's memory quadratically: shapes
 * for the sizes 1..1,000 alone held 139 MB, 1..3,000 held 1.2 GB (measured with runShape).
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
  it.fails('stays bounded when turns of many sizes are committed', async () => {
    const cache: ShapeCache = new Map();
    await backend.write((db) => insertSession(db, 's', undefined, 1));
    let head: string | null = null;
    for (let size = 1; size <= 80; size++) {
      const messages = Array.from({ length: size }, (_, at) => user(`${size}-${at}`));
      const prepared = prepareTurn('s', { messages, meta: {} }, head, undefined);
      const checkpoint = await backend.write((db) =>
        commitTurn(keepShapes(db, cache), prepared, 2, true),
      );
      head = checkpoint.id;
    }
    expect(cache.size).toBeLessThanOrEqual(40);
  });
});
