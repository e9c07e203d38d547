// The README's usage example, verbatim: readme-examples.test.ts checks the README still holds this text,
// and type-checking the tests compiles it.
import * as z from 'zod';
import { calculatorTool, defineTool, PolicyToolExecutor, ToolRegistry, workspaceTools } from '@mh/tools';

const add = defineTool({
  name: 'add',
  description: 'Adds two numbers.',
  input: z.object({ a: z.number(), b: z.number() }),
  permission: 'read',
  run: ({ a, b }) => String(a + b),
});
const registry = new ToolRegistry([add, calculatorTool(), ...workspaceTools({ root: '.' })]);
const executor = new PolicyToolExecutor({ registry, grants: ['write'] });
// Give `executor` to the loop (`runLoop({ tools: executor, … })`) or to `new Agent({ tools })`.
