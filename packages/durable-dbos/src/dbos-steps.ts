import type { DBOS } from '@dbos-inc/dbos-sdk';
import type { StepInfo, StepRunner } from '@mh/core';

/** The DBOS class (`import { DBOS } from '@dbos-inc/dbos-sdk'`), as this package uses it. */
export type Dbos = typeof DBOS;

/**
 * A `StepRunner` over one DBOS workflow: each step is `DBOS.runStep`, checkpointed in the system
 * database under its stable name, so a recovered workflow gets the recorded value back instead of
 * running the step again. Engine retries are allowed only for steps that may run again
 * (`StepInfo.retries`: idempotent tools); a model call is never retried by DBOS, since the
 * provider (`withRetry`) retries inside the step and the two must not stack.
 *
 * Ids are the workflow id and a counter: the same sequence on every execution of the workflow,
 * unique across workflows.
 */
export function dbosSteps(dbos: Dbos, workflowId: string): StepRunner {
  let ids = 0;
  const scope = compact(workflowId);
  return {
    step<T>(step: StepInfo, run: () => Promise<T>): Promise<T> {
      return dbos.runStep(run, {
        name: step.name,
        retriesAllowed: step.retries,
        ...(step.retries ? { maxAttempts: 3, intervalSeconds: 1, backoffRate: 2 } : {}),
      });
    },
    newId(prefix: string): string {
      ids++;
      return `${prefix}_${scope}_${ids.toString(36)}`;
    },
  };
}

/** The workflow id as id-safe letters (DBOS ids are UUIDs by default; callers may choose any). */
function compact(workflowId: string): string {
  return workflowId.replace(/[^A-Za-z0-9]/g, '').slice(0, 40) || 'wf';
}
