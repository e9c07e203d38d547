// The README's usage example, verbatim: readme-examples.test.ts checks it matches the README,
// type-checking the tests compiles it, and the test runs it on SQLite in a temporary folder.
import { openSqliteStore } from '@mh/session-sql';
import { openPostgresStore } from '@mh/session-sql/postgres';

const store = process.env.DATABASE_URL
  ? await openPostgresStore({ connectionString: process.env.DATABASE_URL })
  : await openSqliteStore('mh.db');
const { id } = await store.createSession({ title: 'demo' });
const prompt = { id: 'u1', role: 'user' as const, content: [{ type: 'text' as const, text: 'Hi' }] };
const checkpoint = await store.commit(id, { messages: [prompt], meta: {} }, { expectedHead: null });
await store.rewind(id, checkpoint.parentId, 'retry'); // a new branch; `main` is kept as it was
await store.close();
