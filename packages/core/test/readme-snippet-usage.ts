// The README's usage example, verbatim: readme-examples.test.ts checks it matches the README, and
// type-checking the tests compiles it (the user's own values are declared, not run).
import { type Message, type Provider, repairHistory, runLoop, validateHistory } from '@mh/core';
import type { ToolExecutor } from '@mh/core';

declare const messagesAfterACrash: Message[]; // a stored conversation
declare const provider: Provider; // e.g. anthropic() from @mh/providers
declare const tools: ToolExecutor; // e.g. a PolicyToolExecutor from @mh/tools
const model = 'claude-sonnet-4-5';

const { history, repairs } = repairHistory(messagesAfterACrash); // dangling calls answered
console.log(validateHistory(history), repairs.length); // [] and what was repaired
for await (const event of runLoop({ provider, model, history, tools, limits: { maxTurns: 10 } })) {
  if (event.type === 'text-delta') process.stdout.write(event.text);
  if (event.type === 'run-end') console.log(event.result.status, event.result.guard);
}
