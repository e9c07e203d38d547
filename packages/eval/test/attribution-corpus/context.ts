// Corpus entries of the context layer: a fact lost to, or a session shaped by, compaction.
import { allOf } from '../../src/checks/logic.js';
import { contains } from '../../src/checks/text.js';
import { ANSWER, type CorpusEntry, compacted, folded, graded, run } from './kit.js';

export const CONTEXT: CorpusEntry[] = [
  ...[
    'ORD-7731',
    'INV-2024-0042',
    '7f3a9c2e',
    'carol@example.com',
    'src/billing/refund.ts',
    'CASE-88',
  ].map(
    (fact, index): CorpusEntry => ({
      name: `fact ${fact} only in compacted history`,
      layer: 'context',
      rule: 'context/compacted-fact',
      build: async () => {
        const session = await run([
          { text: 'I no longer have the identifier; the total was $41.' },
        ]);
        const originals = [
          folded(`msg_old_${index}`, `lookup result: record ${fact}, status open, total $41`),
        ];
        return graded(compacted(session, originals), allOf(contains(fact), contains('$41')));
      },
    }),
  ),
  ...[
    'summary dropped nothing needed',
    'trimmed old tool output',
    'summary of a long chat',
    'two compactions',
  ].map(
    (name, index): CorpusEntry => ({
      name: `compaction happened: ${name}`,
      layer: 'context',
      rule: 'context/compaction',
      build: async () => {
        const session = await run([{ text: `The answer is ${30 + index}.` }]);
        return graded(
          compacted(session, [folded(`msg_chat_${index}`, 'small talk about the weather')]),
          ANSWER,
        );
      },
    }),
  ),
];
