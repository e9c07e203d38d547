// Hard faults: a model that repeats successful calls until a limit stops it (the model is at
// fault), and a control that makes progress under a limit too tight (the harness's guard is).
import { agentOf, type Fault, type FaultContext, faultCase, lookupCall, QUESTION } from './kit.js';

const calculatorCall = (expression: string) => ({
  toolCalls: [{ name: 'calculator', input: { expression } }],
});

export const LOOP_FAULTS: readonly Fault[] = [
  {
    label: 'model',
    evalCase: faultCase('model-loops-until-max-turns', QUESTION),
    agent: (context) => agentOf(context, [lookupCall('A-1')], { limits: { maxTurns: 4 } }),
  },
  {
    label: 'model',
    evalCase: faultCase('model-alternates-until-max-turns', QUESTION),
    // Two successful calls, again and again: the repeat guard (same call twice in a row) misses it.
    agent: (context) => alternating(context),
  },
  {
    label: 'model',
    evalCase: faultCase('model-loops-after-one-step', QUESTION),
    agent: (context) =>
      agentOf(context, [lookupCall('A-2'), lookupCall('A-1')], { limits: { maxTurns: 5 } }),
  },
  // Control: every call moves the task on (one re-check among them); the limit is too tight.
  {
    label: 'harness',
    evalCase: faultCase('harness-max-turns-progressing', QUESTION),
    agent: (context) =>
      agentOf(
        context,
        [
          lookupCall('A-1'),
          calculatorCall('41.50 * 2'),
          lookupCall('A-2'),
          calculatorCall('9.99 * 2'),
          lookupCall('A-1'),
          calculatorCall('83 + 19.98'),
          { text: 'ANSWER: $41.50' },
        ],
        { limits: { maxTurns: 5 } },
      ),
  },
];

/** A model that alternates two successful calls forever. */
function alternating(context: FaultContext) {
  let turn = 0;
  return agentOf(
    context,
    [() => (turn++ % 2 === 0 ? lookupCall('A-1') : calculatorCall('41.50 * 1'))],
    { limits: { maxTurns: 6 } },
  );
}
