// Injected faults of the eval layer: the eval's own check or agent factory is broken.
import { check, pathIs } from '@mh/eval';
import { agentOf, type Fault, faultCase, lookupThenAnswer } from './kit.js';

const answersRight = (context: Parameters<Fault['agent']>[0]) =>
  agentOf(context, lookupThenAnswer());

export const EVAL_FAULTS: readonly Fault[] = [
  ...[
    check(
      'reads a missing field',
      ({ runs }) =>
        (runs[0] as unknown as { details: { total: string } }).details.total === '$41.50',
    ),
    check('returns a string', () => 'yes' as unknown as boolean),
    check('parses the answer as JSON', ({ text }) => JSON.parse(text).total === '$41.50'),
    pathIs('orders/a-1.json', { from: () => 42 as unknown as string }),
    check('compares with a fixture', async () => {
      throw new Error('fixture orders.json not found');
    }),
  ].map(
    (broken, index): Fault => ({
      label: 'eval',
      evalCase: faultCase(`eval-check-${index}`, 'What is the total of order A-1?', broken),
      agent: answersRight,
    }),
  ),
  ...[
    (context: Parameters<Fault['agent']>[0]) => agentOf(context, [], { model: '' }),
    (context: Parameters<Fault['agent']>[0]) => agentOf(context, [], { limits: { maxTurns: 0 } }),
    (context: Parameters<Fault['agent']>[0]) =>
      agentOf(context, [], { tools: 'calculator' as never }),
    () => {
      throw new Error('workspace fixture missing: /fixtures/orders');
    },
    () => ({}) as never,
  ].map(
    (factory, index): Fault => ({
      label: 'eval',
      evalCase: faultCase(`eval-factory-${index}`, 'What is the total of order A-1?'),
      agent: factory,
    }),
  ),
];
