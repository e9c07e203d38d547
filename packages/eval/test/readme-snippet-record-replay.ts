// The README's "Record and replay" example, verbatim: readme-examples.test.ts checks the README
// still holds this text, and type-checking the tests compiles it.
import { openCassette } from '@mh/eval';
import { anthropic } from '@mh/providers/anthropic';
import { Agent, calculatorTool, ToolExecutor, ToolRegistry } from '@mh/sdk';

const model = 'claude-sonnet-4-5';
const registry = new ToolRegistry([calculatorTool()]);
const cassette = await openCassette('suite.cassette.jsonl', { mode: 'record', meta: { model } });
const key = { case: 'refund-order', repeat: 0 };            // one provider per (case, repeat)
const agent = new Agent({
  provider: cassette.provider(anthropic(), key),             // RecordingProvider
  tools: cassette.tools(new ToolExecutor({ registry }), key), // records each tool result
  model,
});
await agent.run('Refund order A-1234');
const { drifts } = await cassette.close();
