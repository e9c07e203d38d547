// Injected faults of the model layer: unknown tools, repeated calls, wrong answers. A few are
// confounded on purpose: their symptoms also fit another layer, as real failures often do.
import { allOf, contains, toolCalled } from '@mh/eval';
import { calculatorTool } from '@mh/tools';
import { agentOf, type Fault, faultCase } from './kit.js';
import { RECALL_PROMPTS, recall } from './recall.js';

export const MODEL_FAULTS: readonly Fault[] = [
  ...['search_orders', 'get_order', 'lookup_order'].map(
    (name): Fault => ({
      label: 'model',
      evalCase: faultCase(`model-unknown-tool-${name}`, 'What is the total of order A-1?'),
      agent: (context) =>
        agentOf(context, [
          { toolCalls: [{ name, input: { id: 'A-1' } }] },
          { text: 'I could not find a tool for that.' },
        ]),
    }),
  ),
  ...[2, 3].map(
    (limit): Fault => ({
      label: 'model',
      evalCase: faultCase(`model-repeats-${limit}`, 'What is the total of order A-1?'),
      agent: (context) =>
        agentOf(context, [{ toolCalls: [{ name: 'lookup', input: { id: 'A-2' } }] }], {
          limits: { maxRepeatedCalls: limit },
        }),
    }),
  ),
  {
    label: 'model',
    evalCase: faultCase('model-wrong-order', 'What is the total of order A-1?'),
    agent: (context) =>
      agentOf(context, [
        { toolCalls: [{ name: 'lookup', input: { id: 'A-2' } }] },
        { text: 'ANSWER: $9.99' },
      ]),
  },
  {
    label: 'model',
    evalCase: faultCase(
      'model-arithmetic',
      'What is 17 * 23?',
      allOf(contains('391'), toolCalled('calculator')),
    ),
    agent: (context) => agentOf(context, [{ text: 'ANSWER: 381' }], { tools: [calculatorTool()] }),
  },
  {
    label: 'model',
    evalCase: faultCase('model-wrong-then-asks', 'What is the total of order A-1?'),
    agent: (context) =>
      agentOf(context, [{ text: 'It is $40.00. Anything else I can help with?' }]),
  },
  {
    label: 'model',
    evalCase: faultCase('model-wrong-after-tool-retry', 'What is the total of order A-1?'),
    agent: (context) =>
      agentOf(context, [
        { toolCalls: [{ name: 'lookup', input: { id: 'A-9' } }] },
        { toolCalls: [{ name: 'lookup', input: { id: 'A-1' } }] },
        { text: 'ANSWER: $14.50' },
      ]),
    confounded: true,
  },
  {
    label: 'model',
    evalCase: faultCase('model-wrong-after-compaction', RECALL_PROMPTS, contains('Dana Reyes')),
    agent: (context) => recall(context, /Dana Reyes/, { wrong: true }),
    confounded: true,
  },
];
