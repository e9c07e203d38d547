import { ConfigError } from '@mh/core';
import fc from 'fast-check';
import { commandArbitraries } from './command-arbitraries.js';
import { SessionStoreConformanceError } from './conformance-error.js';
import { checkAll, StoreHarness } from './harness.js';
import { createSession } from './lifecycle-commands.js';
import type { SessionStoreConformanceOptions, SessionStoreConformanceReport } from './options.js';
import { StoreModel } from './store-model.js';

const positive = (value: unknown, field: string): void => {
  if (value !== undefined && (!Number.isInteger(value) || (value as number) < 1)) {
    throw new ConfigError(field, 'expected a positive integer');
  }
};

function checkOptions(options: SessionStoreConformanceOptions): void {
  if (typeof options?.open !== 'function')
    throw new ConfigError('open', 'expected a function that opens the store');
  for (const key of ['reopen', 'crashWriter'] as const) {
    if (options[key] !== undefined && typeof options[key] !== 'function')
      throw new ConfigError(key, 'expected a function');
  }
  positive(options.numRuns, 'numRuns');
  positive(options.maxCommands, 'maxCommands');
  positive(options.timeLimitMs, 'timeLimitMs');
  positive(options.concurrency, 'concurrency');
  if (
    options.path !== undefined &&
    (typeof options.path !== 'string' || options.seed === undefined)
  ) {
    throw new ConfigError(
      'path',
      'expected the path string a counterexample printed, with its seed',
    );
  }
  if (options.seed !== undefined && !Number.isInteger(options.seed))
    throw new ConfigError('seed', 'expected an integer');
}

/** One generator over its own store: a fast-check run of `numRuns` sequences from `seed`. */
async function runLane(
  options: SessionStoreConformanceOptions,
  lane: { readonly seed: number; readonly numRuns: number; readonly tag: string },
  harness: StoreHarness,
): Promise<{ runs: number; interrupted: boolean }> {
  let sequence = 0;
  // Sequences share the store: each works in sessions of its own, named by lane and sequence.
  const runOne = async (
    commands: Iterable<fc.AsyncCommand<StoreModel, StoreHarness>>,
  ): Promise<void> => {
    const model = new StoreModel(`${lane.tag}q${++sequence}`);
    await createSession(model, harness, undefined);
    await fc.asyncModelRun(() => ({ model, real: harness }), commands);
    // What every command touched was compared deeply or after it; this catches the rest.
    await checkAll(model, harness, false);
  };
  const arbitrary = fc.commands(
    commandArbitraries({
      reopen: options.reopen !== undefined,
      crash: options.crashWriter !== undefined,
      // Optional in the port: generated only when the store the factory gave has it.
      commitTurns: typeof harness.store.commitTurns === 'function',
    }),
    { maxCommands: options.maxCommands ?? 12 },
  );
  const details = await fc.check(fc.asyncProperty(arbitrary, runOne), {
    numRuns: lane.numRuns,
    seed: lane.seed,
    ...(options.path === undefined ? {} : { path: options.path }),
    ...(options.timeLimitMs === undefined
      ? {}
      : { interruptAfterTimeLimit: options.timeLimitMs, markInterruptAsFailure: false }),
  });
  if (!details.failed) return { runs: details.numRuns, interrupted: details.interrupted };
  const failure =
    details.errorInstance instanceof Error
      ? details.errorInstance.message
      : String(details.errorInstance);
  if (!details.counterexample) {
    throw new SessionStoreConformanceError(
      { seed: details.seed, path: details.counterexamplePath ?? '', commands: [], failure },
      { cause: details.errorInstance },
    );
  }
  const [commands] = details.counterexample;
  // Run the shrunk sequence once more, so each command describes what it did in it.
  await runOne(commands).catch(() => undefined);
  throw new SessionStoreConformanceError(
    {
      seed: details.seed,
      path: details.counterexamplePath ?? '',
      commands: [...commands]
        .filter((command) => (command as { hasRan?: boolean }).hasRan !== false)
        .map((command) => String(command)),
      failure,
    },
    { cause: details.errorInstance },
  );
}

/**
 * Runs the model-based `SessionStore` suite: fast-check generates sequences of store calls
 * (commits on the head and on stale heads, retries, `commitTurns` when the store has it, rewinds,
 * forks, branch switches, journal writes right and wrong, bad calls, deletes, and with the hooks
 * reopens and crashes), runs each against the store and an in-memory reference model, and after
 * every command compares all the store says about the touched session with the model. Resolves
 * with a report; rejects with a `SessionStoreConformanceError` holding the seed, path and shrunk
 * sequence of a counterexample.
 * Framework-agnostic: await it in any test runner.
 *
 * @example
 * ```ts
 * const report = await runSessionStoreConformance({ open: () => openMyStore(url), numRuns: 500 });
 * ```
 */
export async function runSessionStoreConformance(
  options: SessionStoreConformanceOptions,
): Promise<SessionStoreConformanceReport> {
  checkOptions(options);
  const started = performance.now();
  const numRuns = options.numRuns ?? 200;
  // A replay (seed given) is one lane, so the seed and path mean exactly what they printed.
  const lanes = options.seed === undefined ? Math.min(options.concurrency ?? 1, numRuns) : 1;
  const base = options.seed ?? Math.floor(Math.random() * 0x7fffffff);
  const runTag = `c${Date.now().toString(36)}${Math.floor(Math.random() * 1296).toString(36)}`;
  const harnesses: StoreHarness[] = [];
  try {
    for (let i = 0; i < lanes; i++) harnesses.push(new StoreHarness(await options.open(), options));
    const outcomes = await Promise.allSettled(
      harnesses.map((harness, i) =>
        runLane(
          options,
          {
            seed: (base + i) | 0,
            numRuns: Math.floor(numRuns / lanes) + (i < numRuns % lanes ? 1 : 0),
            tag: `${runTag}l${i}`,
          },
          harness,
        ),
      ),
    );
    const failed = outcomes.find((outcome) => outcome.status === 'rejected');
    if (failed) throw failed.reason;
    const done = outcomes.flatMap((outcome) =>
      outcome.status === 'fulfilled' ? [outcome.value] : [],
    );
    const commands: Record<string, number> = {};
    for (const harness of harnesses) {
      for (const [kind, count] of Object.entries(harness.counts)) {
        commands[kind] = (commands[kind] ?? 0) + count;
      }
    }
    return {
      runs: done.reduce((sum, lane) => sum + lane.runs, 0),
      commands,
      seeds: harnesses.map((_, i) => (base + i) | 0),
      interrupted: done.some((lane) => lane.interrupted),
      durationMs: Math.round(performance.now() - started),
    };
  } finally {
    for (const harness of harnesses) await harness.store.close().catch(() => undefined);
  }
}
