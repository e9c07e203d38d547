import {
  ConfigError,
  type QuestionAsker,
  questionAsker,
  type Tool,
  ToolInterrupt,
  type ToolRunContext,
} from '@mh/core';
import { afterEach, describe, expect, it } from 'vitest';
import { type McpClient, registerMcpTools } from '../src/index.js';
import { fakeClient, readLog, waitFor } from './helpers.js';

const clients: McpClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

/** The fake server's `elicit` tool, registered from a client with `elicitation` as given. */
async function elicitTool(elicitation?: 'interrupt') {
  const { client, logFile } = fakeClient('ok', elicitation ? { elicitation } : {});
  clients.push(client);
  await client.connect();
  const tools = new Map<string, Tool>();
  await registerMcpTools({ register: (tool) => tools.set(tool.name, tool) }, client, {
    allow: ['elicit'],
    onWarning: () => {},
  });
  const tool = tools.get('fake__elicit');
  if (!tool) throw new Error('fake__elicit not registered');
  return { tool, logFile };
}

const context = (asker: QuestionAsker | undefined): ToolRunContext => ({
  signal: new AbortController().signal,
  callId: 'c1',
  attempt: 1,
  ...(asker ? { interrupt: asker.interrupt } : {}),
});

const textOf = (output: unknown): string =>
  typeof output === 'string' ? output : JSON.stringify(output);

describe("an MCP server's elicitation during a tool call (elicitation: 'interrupt')", () => {
  it('becomes ctx.interrupt: without an answer the call stops with the question, nothing greeted', async () => {
    const { tool, logFile } = await elicitTool('interrupt');
    const asker = questionAsker('c1');
    const error = await tool.run({ who: 'ada' }, context(asker)).catch((caught: unknown) => caught);
    expect(ToolInterrupt.isInstance(error)).toBe(true);
    expect(asker.pending).toEqual({
      question: 'Name to greet for ada?',
      schema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
      answers: [],
    });
    // The server was answered (cancel), not left waiting, and greeted nobody.
    expect(await waitFor(() => readLog(logFile).some((entry) => 'elicited' in entry))).toBe(true);
    const elicited = readLog(logFile).find((entry) => 'elicited' in entry)?.elicited;
    expect(elicited).toMatchObject({ result: { action: 'cancel' } });
    expect(readLog(logFile).some((entry) => 'greeted' in entry)).toBe(false);
  });

  it('answers the elicitation of the call sent again with the stored answer', async () => {
    const { tool, logFile } = await elicitTool('interrupt');
    const asker = questionAsker('c1', [{ name: 'Ada' }]);
    const output = await tool.run({ who: 'ada' }, context(asker));
    expect(textOf(output)).toContain('hello Ada');
    expect(asker.pending).toBeUndefined();
    expect(readLog(logFile).filter((entry) => 'greeted' in entry)).toEqual([{ greeted: 'Ada' }]);
  });

  it('declines a non-object answer (the requested schema is an object)', async () => {
    const { tool } = await elicitTool('interrupt');
    const output = await tool.run({ who: 'ada' }, context(questionAsker('c1', ['Ada'])));
    expect(textOf(output)).toContain('no name: decline');
  });

  it('declines when the executor cannot interrupt (no ctx.interrupt)', async () => {
    const { tool } = await elicitTool('interrupt');
    expect(textOf(await tool.run({ who: 'ada' }, context(undefined)))).toContain(
      'no name: decline',
    );
  });

  it('without the option does not declare the capability: the server gets an error', async () => {
    const { tool } = await elicitTool();
    const output = await tool.run({ who: 'ada' }, context(questionAsker('c1', [{ name: 'x' }])));
    expect(textOf(output)).toContain('no name: ');
    expect(textOf(output)).not.toContain('hello');
  });

  it('refuses an unknown elicitation option, naming it', () => {
    const error = (() => {
      try {
        fakeClient('ok', { elicitation: 'ask' as never });
      } catch (caught) {
        return caught;
      }
    })();
    expect(ConfigError.isInstance(error) && error.field).toBe('options.elicitation');
  });
});
