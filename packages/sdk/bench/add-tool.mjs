// The tool the agent benches call: `add`, which only reads (a crash may run it again).
import { defineTool } from '@mh/sdk';
import { z } from 'zod';

/** Adds two numbers. */
export const add = defineTool({
  name: 'add',
  description: 'Adds two numbers.',
  permission: 'read',
  input: z.object({ a: z.number(), b: z.number() }),
  run: async ({ a, b }) => String(a + b),
});
