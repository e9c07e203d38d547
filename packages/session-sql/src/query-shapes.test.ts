import Database from 'better-sqlite3';
import { Kysely, type LogEvent, SqliteDialect, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { keepShapes, MAX_SHAPES, runShape, type ShapeCache, sizedKey } from './query-shapes.js';

interface Db {
  notes: { id: number; text: string };
}

function database(): { db: Kysely<Db>; compiled: string[] } {
  const compiled: string[] = [];
  const db = new Kysely<Db>({
    dialect: new SqliteDialect({ database: new Database(':memory:') }),
    log: (event: LogEvent) => {
      compiled.push(event.query.sql);
    },
  });
  return { db, compiled };
}

describe('runShape', () => {
  it('compiles a shape once per key and runs it with each call’s values', async () => {
    const { db } = database();
    await sql`create table notes (id integer primary key, text text)`.execute(db);
    const cache: ShapeCache = new Map();
    const shaped = keepShapes(db, cache);
    let builds = 0;
    const insert = (id: number, text: string) =>
      runShape(shaped, 'insert', [id, text] as const, (id, text) => {
        builds++;
        return shaped.insertInto('notes').values({ id, text });
      });
    await insert(1, 'one');
    await insert(2, 'two');
    await insert(3, "it's three");
    expect(builds).toBe(1);
    const { rows } = await runShape(shaped, 'by-id', [2] as const, (id) =>
      shaped.selectFrom('notes').select('text').where('id', '=', id),
    );
    expect(rows).toEqual([{ text: 'two' }]);
    const again = await runShape(shaped, 'by-id', [3] as const, (id) =>
      shaped.selectFrom('notes').select('text').where('id', '=', id),
    );
    expect(again.rows).toEqual([{ text: "it's three" }]);
    expect(cache.size).toBe(2);
    await db.destroy();
  });

  it('refuses a shape that changes or drops a value instead of passing it', async () => {
    const { db } = database();
    await sql`create table notes (id integer primary key, text text)`.execute(db);
    const shaped = keepShapes(db, new Map());
    // A value turned into another one while building would be baked into every later run.
    await expect(
      runShape(shaped, 'changed', ['x'] as const, (text) =>
        shaped.selectFrom('notes').select('id').where('text', '=', String(text)),
      ),
    ).rejects.toThrow('query shape changed: value 0 is not a parameter');
    await expect(
      runShape(shaped, 'dropped', [1, 2] as const, (id, _unused) =>
        shaped.selectFrom('notes').select('text').where('id', '=', id),
      ),
    ).rejects.toThrow('query shape dropped: value 1 is not a parameter');
    await db.destroy();
  });

  it('keeps at most MAX_SHAPES shapes, and none for a query without a key', async () => {
    const { db } = database();
    await sql`create table notes (id integer primary key, text text)`.execute(db);
    const cache: ShapeCache = new Map();
    const shaped = keepShapes(db, cache);
    for (let id = 1; id <= MAX_SHAPES + 10; id++) {
      await runShape(shaped, `insert-${id}`, [id, `n${id}`] as const, (id, text) =>
        shaped.insertInto('notes').values({ id, text }),
      );
    }
    await runShape(shaped, undefined, [0, 'zero'] as const, (id, text) =>
      shaped.insertInto('notes').values({ id, text }),
    );
    expect(cache.size).toBe(MAX_SHAPES);
    const { rows } = await runShape(shaped, undefined, [] as const, () =>
      shaped.selectFrom('notes').select(({ fn }) => fn.countAll<number>().as('n')),
    );
    expect(rows).toEqual([{ n: MAX_SHAPES + 11 }]);
    expect(sizedKey('rows', 16)).toBe('rows:16');
    expect(sizedKey('rows', 17)).toBeUndefined();
    await db.destroy();
  });

  it('builds the query anew on a database that keeps no shapes', async () => {
    const { db, compiled } = database();
    await sql`create table notes (id integer primary key, text text)`.execute(db);
    let builds = 0;
    for (const id of [1, 2]) {
      await runShape(db, 'insert', [id, `n${id}`] as const, (id, text) => {
        builds++;
        return db.insertInto('notes').values({ id, text });
      });
    }
    expect(builds).toBe(2);
    expect(compiled.filter((text) => text.startsWith('insert'))).toHaveLength(2);
    await db.destroy();
  });
});
