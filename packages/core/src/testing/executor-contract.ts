import { runLoop } from '../loop/run-loop.js';
import { type ToolUseBlock, userMessage } from '../messages/message.js';
import type { Permission, Tool } from '../ports/tool.js';
import type { ToolCallEvent, ToolExecutor } from '../ports/tool-executor.js';
import { ScriptedProvider } from './scripted-provider.js';

/** How long the check waits for what must come; what must not come gets `HOLD_MS` to show up. */
const PATIENCE_MS = 2_000;
const HOLD_MS = 25;

/** How the check's tools behave. */
interface ProbeOptions {
  /** Finish at once instead of when released. */
  readonly open?: boolean;
  /** Ignore the signal while held (the tool that must not keep an executor waiting). */
  readonly deaf?: boolean;
  /** Told when a tool starts running. */
  readonly onRun?: (name: string) => void;
}

/** Tools the check controls: each records when it runs and finishes when released. */
class Probes {
  readonly ran: string[] = [];
  readonly released: string[] = [];
  readonly tools: readonly Tool[];
  readonly #gates = new Map<string, () => void>();

  constructor(permissions: Readonly<Record<string, Permission>>, options: ProbeOptions = {}) {
    this.tools = Object.entries(permissions).map(
      ([name, permission]): Tool => ({
        name,
        description: `A tool the contract check runs (${permission}).`,
        schema: {
          jsonSchema: { type: 'object' },
          parse: (input) => ({ success: true, value: input }),
        },
        permission,
        run: (_input, { signal }) => {
          this.ran.push(name);
          options.onRun?.(name);
          if (options.open) return Promise.resolve(`${name} done`);
          return new Promise<string>((resolve, reject) => {
            this.#gates.set(name, () => resolve(`${name} done`));
            if (!options.deaf) signal.addEventListener('abort', () => reject(new Error('aborted')));
          });
        },
      }),
    );
  }

  /** Tools running and not released, oldest first. */
  get held(): string[] {
    return this.ran.filter((name) => this.#gates.has(name) && !this.released.includes(name));
  }

  release(name: string): void {
    this.released.push(name);
    this.#gates.get(name)?.();
  }
}

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function within<T>(promise: Promise<T>, ms: number): Promise<T | 'timeout'> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

const callOf = (name: string): ToolUseBlock => ({ type: 'tool_use', id: name, name, input: {} });

/**
 * Pulls every event of `names`, releasing the newest held tool whenever the executor waits, and
 * checks each event against the port's contract (start before run, held until pulled, one end per
 * start, ends in completion order).
 */
async function drive(
  scenario: string,
  make: MakeExecutor,
  permissions: Record<string, Permission>,
) {
  const problems: string[] = [];
  const probes = new Probes(permissions);
  const iterator = make(probes.tools)
    .execute(Object.keys(permissions).map(callOf), { signal: new AbortController().signal })
    [Symbol.asyncIterator]();
  const started = new Set<string>();
  const ends: string[] = [];
  for (;;) {
    const pending = iterator.next();
    let step = await within(pending, HOLD_MS);
    for (let held = probes.held.at(-1); step === 'timeout' && held; held = probes.held.at(-1)) {
      probes.release(held);
      step = await within(pending, HOLD_MS);
    }
    if (step === 'timeout') step = await within(pending, PATIENCE_MS);
    if (step === 'timeout') return [`${scenario}: the executor stopped yielding`];
    if (step.done) break;
    const event: ToolCallEvent = step.value;
    if (event?.type !== 'tool-start' && event?.type !== 'tool-end')
      return [
        ...problems,
        `${scenario}: it yielded something that is not a tool-start or tool-end`,
      ];
    if (event.type === 'tool-start') {
      const name = event.call.name;
      if (probes.ran.includes(name))
        problems.push(`${scenario}: ${name} ran before its tool-start`);
      await pause(HOLD_MS);
      if (probes.ran.includes(name))
        problems.push(`${scenario}: ${name} ran before the consumer pulled after its tool-start`);
      started.add(name);
    } else {
      const name = event.outcome.call.name;
      if (!started.has(name) || ends.includes(name))
        problems.push(`${scenario}: a tool-end for ${name} without its own tool-start`);
      ends.push(name);
    }
  }
  const unanswered = [...started].filter((name) => !ends.includes(name));
  if (unanswered.length > 0) problems.push(`${scenario}: no tool-end for ${unanswered.join(', ')}`);
  if (ends.join() !== probes.released.join())
    problems.push(
      `${scenario}: tool-ends ${ends.join()} are not in completion order ${probes.released.join()}`,
    );
  return problems;
}

/**
 * Aborts at `moment` and checks that nothing more is yielded and no tool starts after the abort:
 * holding r1's first event; while the executor waits for tools that ignore their signal; after r1
 * finished, with the event after r1's start taken (r2's start, for parallel reads).
 */
async function abortAt(make: MakeExecutor, moment: 'start' | 'running' | 'finished') {
  const scenario = {
    start: 'abort while holding a tool-start',
    running: 'abort while a tool runs',
    finished: 'abort after a tool finished',
  }[moment];
  const second = moment === 'finished' ? 'r2' : 'w1';
  const probes = new Probes(
    { r1: 'read', [second]: second === 'r2' ? 'read' : 'write' },
    { open: moment === 'finished', deaf: true },
  );
  const controller = new AbortController();
  const iterator = make(probes.tools)
    .execute([callOf('r1'), callOf(second)], { signal: controller.signal })
    [Symbol.asyncIterator]();
  const first = await within(iterator.next(), PATIENCE_MS);
  if (first === 'timeout' || first.done) return [`${scenario}: no tool-start for r1`];
  let pending: Promise<IteratorResult<ToolCallEvent, unknown>> | undefined;
  if (moment === 'finished') await within(iterator.next(), PATIENCE_MS);
  if (moment === 'running') {
    // Takes what comes at once (parallel calls' starts) until the executor waits for its tools.
    for (;;) {
      pending = iterator.next();
      const step = await within(pending, HOLD_MS);
      if (step === 'timeout') break;
      if (step.done) return [`${scenario}: the executor ended before its tools did`];
    }
  } else await pause(HOLD_MS);
  controller.abort();
  const ranBefore = probes.ran.length;
  const next = await within(pending ?? iterator.next(), PATIENCE_MS);
  await pause(HOLD_MS);
  const problems: string[] = [];
  if (next === 'timeout') problems.push(`${scenario}: the executor went on waiting for its tool`);
  else if (!next.done) problems.push(`${scenario}: it yielded ${next.value.type} after the abort`);
  if (moment === 'start' && ranBefore > 0)
    problems.push(`${scenario}: r1 ran although the consumer had not pulled after its tool-start`);
  if (probes.ran.length > ranBefore)
    problems.push(`${scenario}: ${probes.ran.slice(ranBefore).join(', ')} ran after the abort`);
  return problems;
}

/** Runs the loop over the executor and checks each call's journal entry was written first. */
async function journalFirst(make: MakeExecutor, permissions: Record<string, Permission>) {
  const scenario = `journal before run (${Object.values(permissions).join(', ')})`;
  const log: string[] = [];
  const probes = new Probes(permissions, { open: true, onRun: (name) => log.push(`run ${name}`) });
  const names = Object.keys(permissions);
  const provider = new ScriptedProvider([
    { toolCalls: names.map((name) => ({ id: name, name })) },
    { text: 'done' },
  ]);
  const hooks = {
    toolStart: async (call: ToolUseBlock): Promise<void> => {
      await pause(HOLD_MS);
      log.push(`journaled ${call.id}`);
    },
  };
  const tools = make(probes.tools);
  for await (const _event of runLoop({
    provider,
    model: 'm',
    history: [userMessage('go')],
    tools,
    hooks,
  })) {
    // Drained: only the order of journal entries and runs matters.
  }
  return names.flatMap((name) => {
    const ran = log.indexOf(`run ${name}`);
    if (ran < 0) return [`${scenario}: ${name} never ran (${log.join(', ')})`];
    return log.indexOf(`journaled ${name}`) < ran
      ? []
      : [`${scenario}: ${name} ran before its journal entry was written (${log.join(', ')})`];
  });
}

/** Builds the executor under test over the tools the check gives it. */
export type MakeExecutor = (tools: readonly Tool[]) => ToolExecutor;

/**
 * Checks an executor against the `ToolExecutor.execute` contract and returns the problems found
 * (empty when it holds). `make` builds it over the check's tools, `w1` and `w2` (`write`), `r1`
 * and `r2` (`read`), each named as its call; it must let writes run without asking. Checked: each
 * call's `tool-start` comes before the tool runs and the tool waits until the consumer pulls
 * again; one `tool-end` per start, in completion order, for sequential writes and for parallel
 * reads; nothing more after an abort (while holding a start, while a tool that ignores its
 * signal runs, after a tool finished); and, driven by `runLoop`, each call's
 * `LoopHooks.toolStart` settles before its tool runs. Takes about a second.
 *
 * @example
 * ```ts
 * import { toolExecutorContractProblems } from '@mh/core/testing';
 * import { expect, it } from 'vitest';
 * import { MyExecutor } from './my-executor.js'; // yours: over `tools`, writes allowed
 *
 * it('keeps the ToolExecutor contract', async () => {
 *   expect(await toolExecutorContractProblems((tools) => new MyExecutor({ tools }))).toEqual([]);
 * });
 * ```
 */
export async function toolExecutorContractProblems(make: MakeExecutor): Promise<string[]> {
  return [
    ...(await drive('sequential writes', make, { w1: 'write', w2: 'write' })),
    ...(await drive('parallel reads', make, { r1: 'read', r2: 'read' })),
    ...(await abortAt(make, 'start')),
    ...(await abortAt(make, 'running')),
    ...(await abortAt(make, 'finished')),
    ...(await journalFirst(make, { w1: 'write', w2: 'write' })),
    ...(await journalFirst(make, { r1: 'read', r2: 'read' })),
  ];
}
