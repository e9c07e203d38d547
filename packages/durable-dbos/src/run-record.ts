import { type ErrorRecord, type RunResult, recordError, reviveError } from '@mh/core';

/**
 * A `RunResult` as a workflow returns it: plain JSON, its error (if any) recorded so that the
 * caller, in this process or another, gets the same typed error back (`runOfRecord`).
 */
export type RunRecord = Omit<RunResult, 'error'> & { readonly error?: ErrorRecord };

/** The result as a workflow's output. */
export function recordRun(result: RunResult): RunRecord {
  const { error, ...rest } = result;
  const plain = JSON.parse(JSON.stringify(rest)) as Omit<RunResult, 'error'>;
  return error === undefined ? plain : { ...plain, error: recordError(error) };
}

/** The workflow's output as the `RunResult` again. */
export function runOfRecord(record: RunRecord): RunResult {
  const { error, ...rest } = record;
  return error === undefined ? rest : { ...rest, error: reviveError(error) };
}
