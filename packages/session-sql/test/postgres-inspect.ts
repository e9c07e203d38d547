import pg from 'pg';

/** Runs `query` on a fresh connection to `url` and returns its rows. */
export async function queryRows<T>(url: string, query: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(query)).rows as T[];
  } finally {
    await client.end();
  }
}

/** Row counts of the store's content tables in `schema`. */
export async function postgresRowCounts(
  url: string,
  schema = 'mh',
): Promise<Record<string, number>> {
  const tables = ['messages', 'checkpoints', 'checkpoint_messages', 'branches', 'pending_turns'];
  const [row] = await queryRows<Record<string, string>>(
    url,
    `select ${tables.map((t) => `(select count(*) from "${schema}"."${t}") as ${t}`).join(', ')}`,
  );
  return Object.fromEntries(tables.map((table) => [table, Number(row?.[table])]));
}

/** Sessions of this database still inside a transaction (a killed writer's, if not cleaned up). */
export async function openTransactions(url: string): Promise<number> {
  const [row] = await queryRows<{ open: string }>(
    url,
    `select count(*) as open from pg_stat_activity
     where datname = current_database() and state like 'idle in transaction%'`,
  );
  return Number(row?.open);
}
