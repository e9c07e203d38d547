import {
  ConfigError,
  type PermissionRequest,
  type Tool,
  type ToolCallEvent,
  type ToolOutcome,
  type ToolUseBlock,
  toolResultText,
} from '@mh/core';
import { collectOutcomes, fieldOf, ManualClock } from '@mh/core/testing';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { defineTool, type ToolDefinition } from './define-tool.js';
import { PolicyToolExecutor, type PolicyToolExecutorOptions } from './policy-tool-executor.js';
import { ToolRegistry } from './tool-registry.js';

function call(name: string, input: unknown = {}, id = `call_${name}`): ToolUseBlock {
  return { type: 'tool_use', id, name, input };
}

/** Runs `calls` through `executor` and returns every outcome. */
function execute(
  executor: PolicyToolExecutor,
  calls: readonly ToolUseBlock[],
  signal: AbortSignal = new AbortController().signal,
): Promise<ToolOutcome[]> {
  return collectOutcomes(executor.execute(calls, { signal }));
}

function textOf(outcome: ToolOutcome | undefined): string {
  if (!outcome) throw new Error('no outcome');
  return toolResultText(outcome.result);
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A clock whose sleeps return at once, recording their length; timeouts must not use it. */
const instantClock = (): ManualClock => new ManualClock(Date.now(), { instant: true });

const echo = defineTool({
  name: 'echo',
  description: 'Echoes its text.',
  input: z.object({ text: z.string() }),
  permission: 'read',
  run: ({ text }) => text,
});

function recordingTool(
  name: string,
  permission: 'read' | 'write' | 'exec',
  ms: number,
  log: string[],
): Tool {
  return defineTool({
    name,
    description: `Sleeps ${ms} ms.`,
    input: z.object({}),
    permission,
    async run() {
      log.push(`start ${name}`);
      await sleep(ms);
      log.push(`end ${name}`);
      return name;
    },
  });
}

describe('PolicyToolExecutor', () => {
  it('runs a read tool and yields an ok outcome with its text', async () => {
    const executor = new PolicyToolExecutor({ tools: [echo] });
    const [outcome] = await execute(executor, [call('echo', { text: 'hi' })]);
    expect(outcome?.status).toBe('ok');
    expect(outcome?.result.isError).toBe(false);
    expect(outcome?.attempts).toBe(1);
    expect(outcome?.permission).toBe('read');
    expect(textOf(outcome)).toBe('hi');
  });

  it('advertises the registry specs in registration order', () => {
    const other = defineTool({ ...echoDefinition(), name: 'aaa' });
    const executor = new PolicyToolExecutor({ registry: new ToolRegistry([echo, other]) });
    expect(executor.specs().map((spec) => spec.name)).toEqual(['echo', 'aaa']);
  });

  it('answers an unknown tool with the list of available tools', async () => {
    const log: string[] = [];
    const executor = new PolicyToolExecutor({
      tools: [echo, recordingTool('slow', 'read', 1, log)],
    });
    const [outcome] = await execute(executor, [call('foo')]);
    expect(outcome?.status).toBe('unknown-tool');
    expect(outcome?.result.isError).toBe(true);
    expect(textOf(outcome)).toBe('Unknown tool: foo. Available tools: echo, slow');
  });

  it('answers broken JSON arguments without running the tool', async () => {
    let runs = 0;
    const tool = defineTool({ ...echoDefinition(), run: () => String(++runs) });
    const executor = new PolicyToolExecutor({ tools: [tool] });
    const broken: ToolUseBlock = { ...call('echo'), rawInput: '{"text": "hi' };
    const [outcome] = await execute(executor, [broken]);
    expect(outcome?.status).toBe('invalid-arguments');
    expect(textOf(outcome)).toMatch(/^Invalid arguments: could not parse JSON arguments: .+/);
    expect(textOf(outcome)).toContain('{"text": "hi');
    expect(runs).toBe(0);
  });

  it('answers arguments that fail the schema with model-readable issues', async () => {
    let runs = 0;
    const tool = defineTool({
      name: 'add',
      description: 'Adds.',
      input: z.object({ a: z.number(), b: z.number() }),
      permission: 'read',
      run: () => String(++runs),
    });
    const executor = new PolicyToolExecutor({ tools: [tool] });
    const [outcome] = await execute(executor, [call('add', { a: 'one', b: 2 })]);
    expect(outcome?.status).toBe('invalid-arguments');
    expect(textOf(outcome)).toBe('Invalid arguments: a: expected number, received string');
    expect(runs).toBe(0);
  });

  it('denies a write tool that was not granted, with a readable sentence', async () => {
    const log: string[] = [];
    const executor = new PolicyToolExecutor({
      tools: [recordingTool('write_file', 'write', 1, log)],
    });
    const [outcome] = await execute(executor, [call('write_file')]);
    expect(outcome?.status).toBe('denied');
    expect(outcome?.result.isError).toBe(true);
    expect(textOf(outcome)).toBe(
      "Permission denied: write_file needs 'write' permission ('write' tools are not allowed in this session)",
    );
    expect(log).toEqual([]);
  });

  it('runs a write tool when write is granted', async () => {
    const log: string[] = [];
    const executor = new PolicyToolExecutor({
      tools: [recordingTool('write_file', 'write', 1, log)],
      grants: ['write'],
    });
    const [outcome] = await execute(executor, [call('write_file')]);
    expect(outcome?.status).toBe('ok');
    expect(log).toEqual(['start write_file', 'end write_file']);
  });

  it('runs an exec tool when the approval callback says yes', async () => {
    const log: string[] = [];
    const requests: PermissionRequest[] = [];
    const executor = new PolicyToolExecutor({
      tools: [recordingTool('shell', 'exec', 1, log)],
      approve: async (request) => {
        requests.push(request);
        return true;
      },
    });
    const [outcome] = await execute(executor, [call('shell', {}, 'c7')]);
    expect(outcome?.status).toBe('ok');
    expect(requests).toEqual([{ toolName: 'shell', permission: 'exec', input: {}, callId: 'c7' }]);
  });

  it('denies when the approval callback says no', async () => {
    const log: string[] = [];
    const executor = new PolicyToolExecutor({
      tools: [recordingTool('shell', 'exec', 1, log)],
      approve: () => false,
    });
    const [outcome] = await execute(executor, [call('shell')]);
    expect(outcome?.status).toBe('denied');
    expect(textOf(outcome)).toBe("Permission denied: shell needs 'exec' permission (not approved)");
    expect(log).toEqual([]);
  });

  it('uses a custom permission policy instead of the default', async () => {
    const executor = new PolicyToolExecutor({
      tools: [echo],
      policy: { check: () => ({ allow: false, reason: 'read-only mode is off' }) },
    });
    const [outcome] = await execute(executor, [call('echo', { text: 'x' })]);
    expect(outcome?.status).toBe('denied');
    expect(textOf(outcome)).toContain('(read-only mode is off)');
  });

  it('denies a call when the policy itself throws', async () => {
    const executor = new PolicyToolExecutor({
      tools: [echo],
      policy: {
        check: () => {
          throw new Error('prompt closed');
        },
      },
    });
    const [outcome] = await execute(executor, [call('echo', { text: 'x' })]);
    expect(outcome?.status).toBe('denied');
    expect(textOf(outcome)).toContain('prompt closed');
  });

  it('stops waiting for an approval when the batch is aborted', async () => {
    const log: string[] = [];
    const executor = new PolicyToolExecutor({
      tools: [recordingTool('shell', 'exec', 1, log)],
      approve: () => new Promise<boolean>(() => {}),
    });
    const settled: ToolOutcome[] = [];
    // The scope wraps all the work for a call (policy included): it sees the call settle.
    const scope = <T>(_call: ToolUseBlock, run: () => T): T => {
      const work = run();
      void Promise.resolve(work).then((outcome) => settled.push(outcome as ToolOutcome));
      return work;
    };
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 20);
    const iterator = executor.execute([call('shell')], { signal: controller.signal, scope });
    expect((await iterator.next()).value).toMatchObject({ type: 'tool-start' });
    expect((await iterator.next()).done).toBe(true);
    await sleep(10);
    expect(settled.map((outcome) => outcome.status)).toEqual(['cancelled']);
    expect(log).toEqual([]);
  });

  it('times out a tool that ignores its signal without waiting for it', async () => {
    let seenSignal: AbortSignal | undefined;
    const hang = defineTool({
      name: 'hang',
      description: 'Never returns.',
      input: z.object({}),
      permission: 'read',
      timeoutMs: 50,
      run: (_input, { signal }) => {
        seenSignal = signal;
        return new Promise<string>(() => {});
      },
    });
    const executor = new PolicyToolExecutor({ tools: [hang] });
    const started = Date.now();
    const [outcome] = await execute(executor, [call('hang')]);
    // The tool never settles: without the timeout this would hang; 10 s leaves room for load.
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(outcome?.status).toBe('timeout');
    expect(textOf(outcome)).toBe('Tool hang timed out after 50 ms');
    expect(seenSignal?.aborted).toBe(true);
  });

  it('runs consecutive read tools in parallel', async () => {
    const log: string[] = [];
    const executor = new PolicyToolExecutor({
      tools: [recordingTool('r1', 'read', 200, log), recordingTool('r2', 'read', 200, log)],
    });
    const outcomes = await execute(executor, [call('r1'), call('r2')]);
    expect(outcomes).toHaveLength(2);
    // Both started before either ended: the overlap itself, independent of machine load (a
    // wall-clock ceiling here failed whenever a loaded machine stalled for 150 ms).
    expect(log.slice(0, 2).sort()).toEqual(['start r1', 'start r2']);
  });

  it('runs write and exec tools strictly one after another in the model order', async () => {
    const log: string[] = [];
    const executor = new PolicyToolExecutor({
      tools: [
        recordingTool('w1', 'exec', 60, log),
        recordingTool('w2', 'write', 5, log),
        recordingTool('w3', 'exec', 30, log),
      ],
      grants: ['write', 'exec'],
    });
    await execute(executor, [call('w1'), call('w2'), call('w3')]);
    expect(log).toEqual(['start w1', 'end w1', 'start w2', 'end w2', 'start w3', 'end w3']);
  });

  it('runs a read after a write only once the write has finished', async () => {
    const log: string[] = [];
    const executor = new PolicyToolExecutor({
      tools: [
        recordingTool('r1', 'read', 40, log),
        recordingTool('r2', 'read', 20, log),
        recordingTool('w', 'write', 20, log),
        recordingTool('r3', 'read', 1, log),
      ],
      grants: ['write'],
    });
    await execute(executor, [call('r1'), call('r2'), call('w'), call('r3')]);
    expect(log.slice(0, 2).sort()).toEqual(['start r1', 'start r2']);
    expect(log.slice(4)).toEqual(['start w', 'end w', 'start r3', 'end r3']);
  });

  it('yields outcomes in completion order', async () => {
    const log: string[] = [];
    const executor = new PolicyToolExecutor({
      tools: [recordingTool('slow', 'read', 80, log), recordingTool('fast', 'read', 1, log)],
    });
    const outcomes = await execute(executor, [call('slow'), call('fast')]);
    expect(outcomes.map((outcome) => outcome.call.name)).toEqual(['fast', 'slow']);
  });

  it('turns a thrown error into an error result carrying its message', async () => {
    const boom = defineTool({
      ...echoDefinition(),
      run: () => {
        throw new Error('disk on fire');
      },
    });
    const executor = new PolicyToolExecutor({ tools: [boom] });
    const [outcome] = await execute(executor, [call('echo', { text: 'x' })]);
    expect(outcome?.status).toBe('error');
    expect(outcome?.result.isError).toBe(true);
    expect(textOf(outcome)).toBe('disk on fire');
  });

  it('reports a tool result flagged isError as an error outcome', async () => {
    const soft = defineTool({
      ...echoDefinition(),
      run: () => ({ content: [{ type: 'text', text: 'not found' }], isError: true }),
    });
    const executor = new PolicyToolExecutor({ tools: [soft] });
    const [outcome] = await execute(executor, [call('echo', { text: 'x' })]);
    expect(outcome?.status).toBe('error');
    expect(outcome?.result.isError).toBe(true);
    expect(textOf(outcome)).toBe('not found');
  });

  it('retries an idempotent tool on transient errors with backoff', async () => {
    let runs = 0;
    const flaky = defineTool({
      ...echoDefinition(),
      idempotent: true,
      run: () => {
        runs += 1;
        if (runs < 3) throw Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
        return 'done';
      },
    });
    const clock = instantClock();
    const executor = new PolicyToolExecutor({ tools: [flaky], clock, retry: { baseMs: 100 } });
    const [outcome] = await execute(executor, [call('echo', { text: 'x' })]);
    expect(outcome?.status).toBe('ok');
    expect(outcome?.attempts).toBe(3);
    expect(clock.sleeps).toHaveLength(2);
  });

  it('never retries a tool that is not idempotent', async () => {
    let runs = 0;
    const flaky = defineTool({
      ...echoDefinition(),
      run: () => {
        runs += 1;
        throw Object.assign(new Error('try again'), { transient: true });
      },
    });
    const executor = new PolicyToolExecutor({ tools: [flaky], clock: instantClock() });
    const [outcome] = await execute(executor, [call('echo', { text: 'x' })]);
    expect(outcome?.status).toBe('error');
    expect(runs).toBe(1);
  });

  it('never retries an idempotent tool on a non-transient error', async () => {
    let runs = 0;
    const broken = defineTool({
      ...echoDefinition(),
      idempotent: true,
      run: () => {
        runs += 1;
        throw new TypeError('bad state');
      },
    });
    const executor = new PolicyToolExecutor({ tools: [broken], clock: instantClock() });
    const [outcome] = await execute(executor, [call('echo', { text: 'x' })]);
    expect(outcome?.attempts).toBe(1);
    expect(runs).toBe(1);
  });

  it('stops retrying after maxAttempts', async () => {
    let runs = 0;
    const down = defineTool({
      ...echoDefinition(),
      idempotent: true,
      run: () => {
        runs += 1;
        throw Object.assign(new Error('connection refused'), { code: 'ECONNREFUSED' });
      },
    });
    const executor = new PolicyToolExecutor({
      tools: [down],
      clock: instantClock(),
      retry: { maxAttempts: 4 },
    });
    const [outcome] = await execute(executor, [call('echo', { text: 'x' })]);
    expect(outcome?.status).toBe('error');
    expect(outcome?.attempts).toBe(4);
    expect(runs).toBe(4);
  });

  it('classifies errors with a custom isTransient', async () => {
    let runs = 0;
    const flaky = defineTool({
      ...echoDefinition(),
      idempotent: true,
      run: () => {
        runs += 1;
        if (runs === 1) throw new Error('HTTP 503');
        return 'ok';
      },
    });
    const executor = new PolicyToolExecutor({
      tools: [flaky],
      clock: instantClock(),
      retry: { isTransient: (error) => error instanceof Error && error.message.includes('503') },
    });
    const [outcome] = await execute(executor, [call('echo', { text: 'x' })]);
    expect(outcome?.status).toBe('ok');
    expect(outcome?.attempts).toBe(2);
  });

  it('retries an idempotent tool that timed out', async () => {
    let runs = 0;
    const slowOnce = defineTool({
      ...echoDefinition(),
      idempotent: true,
      timeoutMs: 30,
      run: () => {
        runs += 1;
        return runs === 1 ? new Promise<string>(() => {}) : 'second time lucky';
      },
    });
    const executor = new PolicyToolExecutor({ tools: [slowOnce], retry: { baseMs: 1 } });
    const [outcome] = await execute(executor, [call('echo', { text: 'x' })]);
    expect(outcome?.status).toBe('ok');
    expect(outcome?.attempts).toBe(2);
  });

  it('truncates a long result, keeping head and tail around a visible marker', async () => {
    const text = `HEAD${'x'.repeat(1_000)}TAIL`;
    const big = defineTool({ ...echoDefinition(), run: () => text });
    const executor = new PolicyToolExecutor({ tools: [big], maxResultChars: 100 });
    const [outcome] = await execute(executor, [call('echo', { text: 'x' })]);
    const result = textOf(outcome);
    expect(result.length).toBeLessThanOrEqual(100);
    expect(result.startsWith('HEAD')).toBe(true);
    expect(result.endsWith('TAIL')).toBe(true);
    expect(result).toMatch(/\n…\[truncated \d+ characters\]…\n/);
  });

  it('runs each call in the scope once, after its tool-start', async () => {
    const seen: string[] = [];
    const executor = new PolicyToolExecutor({ tools: [echo] });
    const calls = [call('echo', { text: 'a' }, 'c1'), call('nope', {}, 'c2')];
    const scope = <T>(scoped: ToolUseBlock, run: () => T): T => {
      seen.push(`scope ${scoped.id}`);
      return run();
    };
    const signal = new AbortController().signal;
    for await (const event of executor.execute(calls, { signal, scope })) {
      seen.push(
        event.type === 'tool-start' ? `start ${event.call.id}` : `end ${event.outcome.call.id}`,
      );
    }
    expect(seen.slice(0, 4)).toEqual(['start c1', 'scope c1', 'start c2', 'scope c2']);
    expect(seen.slice(4).sort()).toEqual(['end c1', 'end c2']);
  });

  it('yields nothing and starts nothing once the batch is aborted', async () => {
    const log: string[] = [];
    const executor = new PolicyToolExecutor({
      tools: [recordingTool('slow', 'read', 300, log), recordingTool('w', 'write', 1, log)],
      grants: ['write'],
    });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 30);
    const events: ToolCallEvent[] = [];
    const calls = [call('slow'), call('w')];
    for await (const event of executor.execute(calls, { signal: controller.signal })) {
      events.push(event);
    }
    expect(events).toEqual([{ type: 'tool-start', call: call('slow') }]);
    // The batch ended on the abort, not when the slow tool finished (its timer fires later).
    expect(log).not.toContain('end slow');
    await sleep(350);
    expect(log).toEqual(['start slow', 'end slow']);
  });

  it('yields nothing after the abort, even an outcome that finished before it', async () => {
    const log: string[] = [];
    const executor = new PolicyToolExecutor({
      tools: [recordingTool('a', 'read', 1, log), recordingTool('b', 'read', 1, log)],
    });
    const controller = new AbortController();
    const iterator = executor.execute([call('a'), call('b')], { signal: controller.signal });
    await iterator.next(); // a's start
    await iterator.next(); // b's start, a running
    const first = await iterator.next();
    await sleep(30);
    controller.abort();
    const second = await iterator.next();
    expect(first.value).toMatchObject({ type: 'tool-end' });
    expect(log.filter((line) => line.startsWith('end')).sort()).toEqual(['end a', 'end b']);
    expect(second.done).toBe(true);
  });

  it('yields no outcome that finishes after the abort', async () => {
    const log: string[] = [];
    const executor = new PolicyToolExecutor({
      tools: [recordingTool('fast', 'read', 1, log), recordingTool('slow', 'read', 80, log)],
    });
    const controller = new AbortController();
    const iterator = executor.execute([call('fast'), call('slow')], { signal: controller.signal });
    await iterator.next(); // fast's start
    await iterator.next(); // slow's start, fast running
    const first = await iterator.next();
    controller.abort();
    const second = await iterator.next();
    expect(first.value).toMatchObject({ type: 'tool-end', outcome: { call: { name: 'fast' } } });
    expect(second.done).toBe(true);
  });

  it('starts no further batch once the consumer stops iterating', async () => {
    const log: string[] = [];
    const executor = new PolicyToolExecutor({
      tools: [recordingTool('first', 'write', 1, log), recordingTool('second', 'write', 1, log)],
      grants: ['write'],
    });
    const signal = new AbortController().signal;
    for await (const event of executor.execute([call('first'), call('second')], { signal })) {
      if (event.type === 'tool-end') break;
    }
    await sleep(30);
    expect(log).toEqual(['start first', 'end first']);
  });

  it('rejects both a policy and grants with ConfigError naming policy', () => {
    const create = (): PolicyToolExecutor =>
      new PolicyToolExecutor({
        tools: [echo],
        policy: { check: () => ({ allow: true }) },
        grants: ['write'],
      });
    expect(create).toThrow(ConfigError);
    expect(fieldOf(create)).toBe('policy');
  });

  it('rejects a misspelt option with ConfigError naming it', () => {
    const options = { tools: [echo], grant: ['write'] } as unknown as PolicyToolExecutorOptions;
    expect(fieldOf(() => new PolicyToolExecutor(options))).toBe('grant');
  });

  it('rejects missing options with ConfigError, not a TypeError', () => {
    const create = (): PolicyToolExecutor =>
      new PolicyToolExecutor(undefined as unknown as PolicyToolExecutorOptions);
    expect(fieldOf(create)).toBe('options');
  });

  it('rejects a maxResultChars below 1 with ConfigError naming it', () => {
    expect(fieldOf(() => new PolicyToolExecutor({ tools: [echo], maxResultChars: 0 }))).toBe(
      'maxResultChars',
    );
  });
});

function echoDefinition(): ToolDefinition<z.ZodObject<{ text: z.ZodString }>> {
  return {
    name: 'echo',
    description: 'Echoes its text.',
    input: z.object({ text: z.string() }),
    permission: 'read',
    run: ({ text }) => text,
  };
}

describe("PolicyToolExecutor onAsk: 'interrupt'", () => {
  const log: string[] = [];
  const write = recordingTool('write_file', 'write', 0, log);

  it("makes an ungranted write call wait, naming the permission, where 'deny' refuses it", async () => {
    const waiting = new PolicyToolExecutor({ tools: [write, echo], onAsk: 'interrupt' });
    expect(await waiting.approval(call('write_file'))).toEqual({
      reason: 'write_file needs the write permission',
      permission: 'write',
    });
    expect(await waiting.approval(call('echo', { text: 'hi' }))).toBeUndefined();
    const denying = new PolicyToolExecutor({ tools: [write] });
    expect(await denying.approval(call('write_file'))).toBeUndefined();
  });

  it('lets a granted call run without waiting', async () => {
    const executor = new PolicyToolExecutor({
      tools: [write],
      grants: ['write'],
      onAsk: 'interrupt',
    });
    expect(await executor.approval(call('write_file'))).toBeUndefined();
  });

  it('runs an approved call (context.approved) and refuses the same call unapproved', async () => {
    log.length = 0;
    const executor = new PolicyToolExecutor({ tools: [write], onAsk: 'interrupt' });
    const [refused] = await execute(executor, [call('write_file')]);
    expect(refused?.status).toBe('denied');
    expect(log).toEqual([]);
    const signal = new AbortController().signal;
    const approved = new Set(['call_write_file']);
    const [ran] = await collectOutcomes(
      executor.execute([call('write_file')], { signal, approved }),
    );
    expect(ran?.status).toBe('ok');
    expect(log).toEqual(['start write_file', 'end write_file']);
  });

  it('asks a custom policy whose preview answers ask', async () => {
    const executor = new PolicyToolExecutor({
      tools: [echo],
      policy: { check: () => ({ allow: false, reason: 'no' }), preview: () => 'ask' },
      onAsk: 'interrupt',
    });
    expect((await executor.approval(call('echo', { text: 'x' })))?.reason).toBe(
      'echo needs the read permission',
    );
  });

  it('rejects a bad onAsk, and onAsk interrupt together with approve', () => {
    const bad = { tools: [echo], onAsk: 'later' } as unknown as PolicyToolExecutorOptions;
    expect(fieldOf(() => new PolicyToolExecutor(bad))).toBe('onAsk');
    expect(
      fieldOf(
        () => new PolicyToolExecutor({ tools: [echo], approve: () => true, onAsk: 'interrupt' }),
      ),
    ).toBe('onAsk');
  });
});
