// The root README's ten-line agent, verbatim: readme-example.test.ts checks the README still holds
// this text, type-checking compiles it, and the test runs it.
import { Agent, fake } from '@mh/sdk';
import { defineTool, z } from '@mh/tools';

const add = defineTool({
  name: 'add', description: 'Adds two numbers.', permission: 'read',
  input: z.object({ a: z.number(), b: z.number() }),
  run: async ({ a, b }) => String(a + b),
});
const agent = new Agent({ provider: fake(), model: 'fake', tools: [add] });
console.log((await agent.run('Use add with a=2 and b=3')).text); // add returned: 5
