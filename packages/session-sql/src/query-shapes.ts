import type { Compilable, CompiledQuery, Kysely, QueryResult } from 'kysely';

// kysely builds and compiles a query on every call: 50 µs for the four-join lookup a write starts
// with, a good part of a commit's cost on SQLite. The store's hot queries are built once per
// shape and per database, with stand-ins for their values, and run again with new values
// (kysely's own "split build, compile and execute" recipe).

/** Stands for the `at`-th value of a shape while it is compiled. */
class Slot {
  readonly at: number;
  constructor(at: number) {
    this.at = at;
  }
}

/** A compiled shape, and for each of its parameters the value it takes (-1: a constant). */
interface Shape {
  readonly compiled: CompiledQuery;
  readonly from: readonly number[];
}

/** The shapes of one database, by key. */
export type ShapeCache = Map<string, Shape>;

/** At most this many shapes per database: past it, a query is built anew, as kysely does. */
export const MAX_SHAPES = 64;

/** Rows of a multi-row insert up to which each count gets a shape of its own. */
const MAX_SHAPED_ROWS = 16;

/**
 * The key of a query with `rows` rows (a multi-row insert): each count is a shape of its own up to
 * 16 rows; beyond, none (a shape's SQL and tree grow with its rows, and a turn that size is rare).
 */
export const sizedKey = (base: string, rows: number): string | undefined =>
  rows <= MAX_SHAPED_ROWS ? `${base}:${rows}` : undefined;

/** The transactions whose database keeps compiled shapes, and where. */
const caches = new WeakMap<object, ShapeCache>();

/** Lets queries run on `db` (a transaction of one database) keep their shapes in `cache`. */
export function keepShapes<D>(db: Kysely<D>, cache: ShapeCache): Kysely<D> {
  caches.set(db, cache);
  return db;
}

/**
 * Runs the query `build` makes from `values`. Where `db` keeps shapes, `build` runs once per
 * `key` with stand-ins, so it must pass its values to kysely untouched (no `String(value)`, no
 * branching on them: a value that changes the SQL belongs in `key`). Without a key, or past
 * `MAX_SHAPES`, and on a database that keeps none, it builds the query anew, as kysely does.
 */
export async function runShape<D, R, const V extends readonly unknown[]>(
  db: Kysely<D>,
  key: string | undefined,
  values: V,
  build: (...values: V) => Compilable<R>,
): Promise<QueryResult<R>> {
  const cache = key === undefined ? undefined : caches.get(db);
  if (cache === undefined || key === undefined) return await db.executeQuery(build(...values));
  let shape = cache.get(key);
  if (shape === undefined) {
    if (cache.size >= MAX_SHAPES) return await db.executeQuery(build(...values));
    const slots = values.map((_, at) => new Slot(at)) as unknown as V;
    const compiled = build(...slots).compile();
    const from = compiled.parameters.map((parameter) =>
      parameter instanceof Slot ? parameter.at : -1,
    );
    // A value kysely wrote into the SQL (or dropped) would be baked into every later run.
    for (let at = 0; at < values.length; at++) {
      if (!from.includes(at)) throw new Error(`query shape ${key}: value ${at} is not a parameter`);
    }
    shape = { compiled, from };
    cache.set(key, shape);
  }
  const { compiled, from } = shape;
  const parameters = from.map((at, index) => (at < 0 ? compiled.parameters[index] : values[at]));
  return await db.executeQuery<R>({ ...compiled, parameters } as CompiledQuery<R>);
}
