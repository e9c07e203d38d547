// Injected faults of the tool layer: tools that fail, time out or reject their arguments.
import { agentOf, brokenTool, type Fault, faultCase, lookupTool, slowTool } from './kit.js';

export const TOOL_FAULTS: readonly Fault[] = [
  ...[
    'inventory service returned HTTP 500',
    'ECONNREFUSED 10.0.0.7:5432',
    'permission denied reading /var/db/orders',
  ].map(
    (message, index): Fault => ({
      label: 'tool',
      evalCase: faultCase(`tool-throws-${index}`, 'What is the total of order A-1?'),
      agent: (context) =>
        agentOf(
          context,
          [
            { toolCalls: [{ name: 'inventory', input: { q: 'A-1' } }] },
            { text: 'The inventory service failed.' },
          ],
          {
            tools: [brokenTool('inventory', message), lookupTool],
          },
        ),
    }),
  ),
  ...['search', 'catalog'].map(
    (name): Fault => ({
      label: 'tool',
      evalCase: faultCase(`tool-timeout-${name}`, 'What is the total of order A-1?'),
      agent: (context) =>
        agentOf(
          context,
          [{ toolCalls: [{ name, input: { q: 'A-1' } }] }, { text: `The ${name} timed out.` }],
          { tools: [slowTool(name), lookupTool] },
        ),
    }),
  ),
  ...[{ id: 1 }, {}, { id: ['A-1'] }].map(
    (input, index): Fault => ({
      label: 'tool',
      evalCase: faultCase(`tool-invalid-args-${index}`, 'What is the total of order A-1?'),
      agent: (context) =>
        agentOf(context, [
          { toolCalls: [{ name: 'lookup', input }] },
          { text: 'The lookup rejected my request.' },
        ]),
    }),
  ),
  ...[3, 4].map(
    (turns): Fault => ({
      label: 'tool',
      evalCase: faultCase(`tool-guard-while-failing-${turns}`, 'What is the total of order A-1?'),
      agent: (context) =>
        agentOf(
          context,
          Array.from({ length: turns + 1 }, (_, n) => ({
            toolCalls: [{ name: 'inventory', input: { q: `A-1 try ${n}` } }],
          })),
          {
            tools: [brokenTool('inventory', 'database is locked')],
            limits: { maxTurns: turns },
          },
        ),
    }),
  ),
];
