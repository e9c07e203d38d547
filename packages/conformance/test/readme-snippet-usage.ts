// The README's usage example, verbatim: readme-examples.test.ts checks it matches the README, and
// type-checking the tests compiles it. It is not run: the store under test is the reader's own.
import { runSessionStoreConformance } from '@mh/conformance';
import type { SessionStore } from '@mh/core';

declare function openMyStore(file: string): Promise<SessionStore>; // the store you are testing

const report = await runSessionStoreConformance({
  open: () => openMyStore('conformance.db'),
  reopen: () => openMyStore('conformance.db'), // optional: durability across close + open
  numRuns: 2000,
  maxCommands: 10,
  timeLimitMs: 55_000,
});
console.log(report); // { runs, commands: { commit: 1999, journalTurn: 1663, … }, seeds, durationMs }
