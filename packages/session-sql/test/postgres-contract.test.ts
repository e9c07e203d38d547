import { openPostgresStore } from '../src/postgres/index.js';
import { describePostgres } from './postgres-target.js';
import { sessionStoreContract } from './session-store-contract.js';

describePostgres('PostgreSQL store', (postgres) => {
  let schemas = 0;
  // One database per file, a fresh schema per test: an empty store in a few milliseconds.
  sessionStoreContract('PostgreSQL', async () => {
    const schema = `contract_${++schemas}`;
    const connectionString = postgres().databaseUrl;
    return { open: () => openPostgresStore({ connectionString, schema, poolSize: 4 }) };
  });
});
