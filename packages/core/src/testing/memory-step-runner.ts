import type { StepInfo, StepRunner } from '../ports/step-runner.js';

/** One step as a `MemoryStepRunner` recorded it. */
export interface RecordedStep {
  readonly name: string;
  /** What the step returned, as JSON (absent for `undefined`). */
  readonly value?: unknown;
}

/** Where a `MemoryStepRunner` simulates a crash. */
export interface SimulatedCrash {
  /** The 0-based index of the step that crashes. */
  readonly at: number;
  /** `before`: the step's body never runs; `after`: it runs, and the crash comes before its record. */
  readonly when: 'before' | 'after';
}

/** Thrown by a `MemoryStepRunner` where it was told to crash. */
export class SimulatedCrashError extends Error {
  /** The step that crashed. */
  readonly step: number;

  constructor(step: number) {
    super(`simulated crash at step ${step}`);
    this.step = step;
    this.name = 'SimulatedCrashError';
  }
}

/**
 * The reference durable engine, in memory: records each step's value as JSON and, given the
 * record of an earlier attempt, replays it (checking each step's name, as an engine must) before
 * running new steps. Ids are `<prefix>_<runKey>_<n>`, the same on every replay. With `crash`, it
 * throws `SimulatedCrashError` at that step, before its body or after it (a crash between a step's
 * effect and its record), and at every step after it (a dead worker has no effects), so a test
 * can replay from every point a worker could die.
 */
export class MemoryStepRunner implements StepRunner {
  /** Every step recorded, the replayed ones first. */
  readonly log: RecordedStep[];
  /** Names of the steps whose body ran in this attempt. */
  readonly ran: string[] = [];
  readonly #runKey: string;
  readonly #crash: SimulatedCrash | undefined;
  #position = 0;
  #ids = 0;
  /** The step that crashed: from then on the runner is a dead worker. */
  #crashed: number | undefined;

  constructor(runKey: string, replay: readonly RecordedStep[] = [], crash?: SimulatedCrash) {
    this.#runKey = runKey;
    this.log = [...replay];
    this.#crash = crash;
  }

  async step<T>(step: StepInfo, run: () => Promise<T>): Promise<T> {
    const index = this.#position++;
    // A dead worker takes no step: whatever the code under test does after the crash has no effect.
    if (this.#crashed !== undefined) throw new SimulatedCrashError(this.#crashed);
    const recorded = this.log[index];
    if (recorded !== undefined) {
      if (recorded.name !== step.name) {
        throw new Error(
          `replay diverged at step ${index}: recorded ${recorded.name}, now ${step.name}`,
        );
      }
      return (recorded.value === undefined ? undefined : structuredClone(recorded.value)) as T;
    }
    if (this.#crash?.at === index && this.#crash.when === 'before') this.#die(index);
    this.ran.push(step.name);
    const value = await run();
    if (this.#crash?.at === index) this.#die(index);
    const json = value === undefined ? undefined : JSON.parse(JSON.stringify(value));
    this.log.push(json === undefined ? { name: step.name } : { name: step.name, value: json });
    return value;
  }

  #die(index: number): never {
    this.#crashed = index;
    throw new SimulatedCrashError(index);
  }

  newId(prefix: string): string {
    this.#ids++;
    return `${prefix}_${this.#runKey}_${this.#ids}`;
  }
}
