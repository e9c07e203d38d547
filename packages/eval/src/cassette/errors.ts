import { ConfigError } from '@mh/core';
import { brandCheck } from '@mh/core/internal';

/** Why a file cannot be used as a cassette. */
export const CASSETTE_FILE_PROBLEMS = [
  'missing',
  'exists',
  'unreadable',
  'not-a-cassette',
  'newer-version',
  'corrupt',
] as const;
/** Why a file cannot be used as a cassette. */
export type CassetteFileProblem = (typeof CASSETTE_FILE_PROBLEMS)[number];

/**
 * The file given to `openCassette` cannot be used: absent (replay), present (record without
 * `overwrite`), not a cassette, written by a newer format version, or corrupt before its last
 * line. The file is left as it was. A `ConfigError` whose `field` is `path`.
 */
export class CassetteFileError extends ConfigError {
  static override readonly brandName: string = 'CassetteFileError';
  /** True for a `CassetteFileError` from any copy of `@mh/eval`. */
  static override readonly isInstance: (value: unknown) => value is CassetteFileError =
    brandCheck('CassetteFileError');
  /** The file, as given. */
  readonly path: string;
  /** What is wrong with it. */
  readonly problem: CassetteFileProblem;

  constructor(
    path: string,
    problem: CassetteFileProblem,
    detail: string,
    options?: { cause?: unknown },
  ) {
    super('path', `${path}: ${detail}`, options);
    this.path = path;
    this.problem = problem;
  }
}
