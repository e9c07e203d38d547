import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { openSqliteStore } from '../src/index.js';
import { sessionStoreContract } from './session-store-contract.js';
import { tempDir } from './turns.js';

let folder: Awaited<ReturnType<typeof tempDir>>;
let files = 0;
beforeAll(async () => {
  folder = await tempDir();
});
afterAll(async () => {
  await folder.remove();
});

sessionStoreContract('SQLite', async () => {
  const path = join(folder.dir, `store-${++files}.db`);
  return { open: () => openSqliteStore(path) };
});
