// The README's usage example, verbatim: readme-examples.test.ts checks the README still holds this text,
// and type-checking the tests compiles it.
import { Agent, calculatorTool, fake, workspaceTools } from '@mh/sdk';

const agent = new Agent({
  provider: fake(),
  model: 'fake',
  tools: [calculatorTool(), ...workspaceTools({ root: '.' })],
  limits: { maxTurns: 10, timeoutMs: 60_000 },
});
const result = await agent.run('What is 6*7?'); // result.status, .text, .usage, .costUsd
for await (const event of agent.stream('List the files here')) {
  if (event.type === 'text-delta') process.stdout.write(event.text);
}
