import { type LoopOptions, type RunResult, runLoop, userMessage } from '@mh/core';

/** Runs the loop to its end with `tracer`, calling `onEvent` between events; returns the result. */
export async function drive(
  options: Partial<LoopOptions> & Pick<LoopOptions, 'provider' | 'tracer'>,
  onEvent?: (type: string) => void,
): Promise<RunResult> {
  const iterator = runLoop({
    model: 'claude-sonnet-4-5',
    history: [userMessage('go')],
    ...options,
  });
  for (;;) {
    const next = await iterator.next();
    if (next.done) return next.value;
    onEvent?.(next.value.type);
  }
}
