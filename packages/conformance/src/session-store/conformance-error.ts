import { HarnessError } from '@mh/core';
import { brandCheck } from '@mh/core/internal';

/**
 * A store broke the `SessionStore` contract on a generated sequence. The sequence is shrunk (fewer
 * and simpler commands) before this is thrown; `seed` and `path` replay it exactly.
 */
export class SessionStoreConformanceError extends HarnessError {
  static override readonly brandName: string = 'SessionStoreConformanceError';
  /** True for a `SessionStoreConformanceError` from any copy of `@mh/conformance`. */
  static override readonly isInstance: (value: unknown) => value is SessionStoreConformanceError =
    brandCheck('SessionStoreConformanceError');
  /** The run's seed. */
  readonly seed: number;
  /** fast-check's path to the shrunk counterexample (replay with `seed` and `path`). */
  readonly path: string;
  /** The shrunk sequence, one command per entry. */
  readonly commands: readonly string[];
  /** What went wrong on the last command. */
  readonly failure: string;

  constructor(
    details: { seed: number; path: string; commands: readonly string[]; failure: string },
    options?: { cause?: unknown },
  ) {
    super(
      [
        `SessionStore conformance failed: ${details.failure}`,
        `seed: ${details.seed}, path: ${JSON.stringify(details.path)}`,
        'shrunk sequence:',
        ...details.commands.map((command, i) => `  ${i + 1}. ${command}`),
      ].join('\n'),
      options,
    );
    this.seed = details.seed;
    this.path = details.path;
    this.commands = details.commands;
    this.failure = details.failure;
  }
}
