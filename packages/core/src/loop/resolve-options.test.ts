import { describe, expect, it } from 'vitest';
import { drainRun } from '../../test/drain-run.js';
import { ConfigError } from '../errors.js';
import { userMessage } from '../messages/message.js';
import type { Provider } from '../ports/provider.js';
import { PricingTable } from '../pricing/prices.js';
import { ScriptedProvider } from '../testing/scripted-provider.js';
import { type ResolvedLoopSettings, resolveLoopOptions, withRunLimits } from './options.js';
import { runLoop } from './run-loop.js';

/** Settings are checked once (resolveLoopOptions); a run given them checks only its own options. */

function thrown(action: () => unknown): ConfigError {
  try {
    action();
  } catch (error) {
    if (ConfigError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

/** The ConfigError a run refuses to start with (runLoop checks on its first step). */
async function refused(options: Parameters<typeof runLoop>[0]): Promise<ConfigError> {
  const error = await runLoop(options)
    .next()
    .then(
      () => undefined,
      (reason: unknown) => reason,
    );
  if (ConfigError.isInstance(error)) return error;
  throw new Error(`expected a ConfigError, got ${String(error)}`);
}

/** A provider that counts how often its `stream` method is looked up (each check reads it). */
function countingProvider(): { provider: Provider; lookups: () => number } {
  const inner = new ScriptedProvider((index) => ({ text: `answer ${index}` }));
  let lookups = 0;
  const provider = new Proxy(inner, {
    get(target, key) {
      if (key === 'stream') lookups++;
      const value = Reflect.get(target, key);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { provider, lookups: () => lookups };
}

describe('resolveLoopOptions', () => {
  it('checks the settings once: runs given them do not look at the provider again', async () => {
    const { provider, lookups } = countingProvider();
    const settings = resolveLoopOptions({ provider, model: 'm' });
    expect(lookups()).toBe(1);
    for (let run = 0; run < 5; run++) {
      const { result } = await drainRun({
        resolved: settings,
        history: [userMessage(`question ${run}`)],
      });
      expect(result.status).toBe('completed');
    }
    // One lookup per model call, none for checking.
    expect(lookups()).toBe(1 + 5);
  });

  it('keeps a frozen copy of what it checked: a limit changed afterwards does not reach a run', async () => {
    const limits = { maxTurns: 3 };
    const settings = resolveLoopOptions({ provider: new ScriptedProvider([]), model: 'm', limits });
    limits.maxTurns = -1;
    expect(settings.limits).toEqual({ maxTurns: 3 });
    expect(Object.isFrozen(settings.limits)).toBe(true);
    const run = withRunLimits(settings, { maxTokens: 10 }, 'options.limits');
    expect(Object.isFrozen(run.limits)).toBe(true);
  });

  it('fills in the defaults and freezes what it returns', () => {
    const settings = resolveLoopOptions({ provider: new ScriptedProvider([]), model: 'm' });
    expect(settings.limits).toEqual({});
    expect(settings.clock).toBeDefined();
    expect(settings.tracer).toBeDefined();
    expect(settings.pricing).toBeDefined();
    expect(Object.isFrozen(settings)).toBe(true);
  });

  it('gives a mistake the same message whether the settings are resolved first or not', async () => {
    const provider = new ScriptedProvider([]);
    const direct = await refused({ provider, model: ' ', history: [] });
    const resolved = thrown(() => resolveLoopOptions({ provider, model: ' ' }));
    expect([direct.field, direct.message]).toEqual([resolved.field, resolved.message]);
    expect(resolved.field).toBe('model');
  });

  it('refuses settings given twice, and settings it did not make', async () => {
    const provider = new ScriptedProvider([]);
    const settings = resolveLoopOptions({ provider, model: 'm' });
    const twice = { resolved: settings, history: [], model: 'other' } as unknown as Parameters<
      typeof runLoop
    >[0];
    expect((await refused(twice)).field).toBe('model');
    const forged = { ...settings } as ResolvedLoopSettings;
    expect((await refused({ resolved: forged, history: [] })).field).toBe('resolved');
  });

  it('checks only the settings a change gives, over a base it made', () => {
    const settings = resolveLoopOptions({ provider: new ScriptedProvider([]), model: 'm' });
    const changed = resolveLoopOptions({ system: 'Be brief.' }, settings);
    expect(changed.system).toBe('Be brief.');
    expect(changed.model).toBe('m');
    expect(
      thrown(() => resolveLoopOptions({ system: 3 as unknown as string }, settings)).field,
    ).toBe('system');
  });
});

describe('withRunLimits', () => {
  const pricing = new PricingTable({ priced: { inputPerMTok: 1, outputPerMTok: 1 } });
  const base = resolveLoopOptions({
    provider: new ScriptedProvider([]),
    model: 'unpriced',
    limits: { maxTurns: 4, maxTokens: 1000 },
  });

  it("lays a run's limits over the settings', a key set to undefined keeping theirs", () => {
    const run = withRunLimits(base, { maxTurns: 2, maxTokens: undefined }, 'options.limits');
    expect(run.limits).toEqual({ maxTurns: 2, maxTokens: 1000 });
    expect(withRunLimits(base, undefined, 'options.limits')).toBe(base);
  });

  it('names the run option in its mistakes', () => {
    expect(thrown(() => withRunLimits(base, { maxTurns: 0 }, 'options.limits')).field).toBe(
      'options.limits.maxTurns',
    );
    expect(thrown(() => withRunLimits(base, { maxCostUsd: 1 }, 'options.limits')).field).toBe(
      'options.limits.maxCostUsd',
    );
    const priced = resolveLoopOptions({ model: 'priced', pricing }, base);
    expect(withRunLimits(priced, { maxCostUsd: 1 }, 'options.limits').limits.maxCostUsd).toBe(1);
  });
});

describe('a turn span', () => {
  it('is never left open when the consumer stops at turn-start', async () => {
    const { InMemoryTracer } = await import('../tracing/in-memory-tracer.js');
    const inner = new InMemoryTracer();
    let started = 0;
    const tracer = Object.assign(Object.create(inner), {
      startSpan: (name: string, options: Parameters<typeof inner.startSpan>[1]) => {
        if (name === 'mh.turn') started++;
        return inner.startSpan(name, options);
      },
    }) as typeof inner;
    const loop = runLoop({
      provider: new ScriptedProvider([{ text: 'hi' }]),
      model: 'm',
      history: [userMessage('q')],
      tracer,
    });
    for await (const event of loop) if (event.type === 'turn-start') break;
    const ended = inner.records().filter((record) => record.name === 'mh.turn').length;
    expect(started).toBe(ended);
    expect(inner.records().map((record) => record.name)).toContain('mh.run');
  });

  it('a cancel while the consumer holds turn-start still goes to the model call (no compaction)', async () => {
    const { InMemoryTracer } = await import('../tracing/in-memory-tracer.js');
    const tracer = new InMemoryTracer();
    const controller = new AbortController();
    const loop = runLoop({
      provider: new ScriptedProvider([{ text: 'hi' }]),
      model: 'm',
      history: [userMessage('q')],
      tracer,
      signal: controller.signal,
    });
    let status: string | undefined;
    for await (const event of loop) {
      if (event.type === 'turn-start') controller.abort();
      if (event.type === 'run-end') status = event.result.status;
    }
    expect(status).toBe('cancelled');
    expect(tracer.records().map((record) => record.name)).toContain('mh.model');
  });
});
