import fc from 'fast-check';
import { ForkCommand, ReadCommand, RewindCommand, SwitchBranchCommand } from './branch-commands.js';
import { CommitCommand, CommitRetryCommand, CommitStaleCommand } from './commit-commands.js';
import { CommitTurnsCommand } from './commit-turns-command.js';
import { textArb, turnSpecArb } from './content.js';
import { CRASH_OPS, CrashCommand } from './crash-command.js';
import type { StoreCommand } from './harness.js';
import { JournalCallCommand, JournalTurnCommand } from './journal-commands.js';
import {
  BadCallCommand,
  CreateSessionCommand,
  DeleteSessionCommand,
  ReopenCommand,
} from './lifecycle-commands.js';
import { JournalQuestionCommand } from './question-commands.js';

const pick = fc.nat({ max: 7 });
const branch = fc.option(pick, { nil: null });

/**
 * The generated commands, weighted toward the writes that interact (commit, journal); reopen
 * and crash only when the caller can provide them, `commitTurns` (crashed too) only when the
 * store has it.
 */
export function commandArbitraries(has: {
  readonly reopen: boolean;
  readonly crash: boolean;
  readonly commitTurns: boolean;
}): fc.Arbitrary<StoreCommand>[] {
  const weighted: [number, fc.Arbitrary<StoreCommand>][] = [
    [
      1,
      fc
        .tuple(fc.option(textArb, { nil: undefined }), fc.boolean())
        .map(([title, dup]) => new CreateSessionCommand(title, dup)),
    ],
    [
      6,
      fc
        .tuple(pick, branch, turnSpecArb, fc.boolean())
        .map(([s, b, spec, refuse]) => new CommitCommand(s, b, spec, refuse)),
    ],
    [
      2,
      fc
        .tuple(pick, pick, pick, turnSpecArb)
        .map(([s, b, p, spec]) => new CommitStaleCommand(s, b, p, spec)),
    ],
    [2, fc.tuple(pick, pick, pick).map(([s, b, from]) => new CommitRetryCommand(s, b, from))],
    [1, pick.map((s) => new ReadCommand(s))],
    [
      2,
      fc
        .tuple(pick, pick, fc.boolean(), fc.boolean())
        .map(([s, p, empty, taken]) => new RewindCommand(s, p, empty, taken)),
    ],
    [
      2,
      fc
        .tuple(pick, branch, fc.boolean())
        .map(([s, from, taken]) => new ForkCommand(s, from, taken)),
    ],
    [
      1,
      fc
        .tuple(pick, pick, fc.boolean())
        .map(([s, b, unknown]) => new SwitchBranchCommand(s, b, unknown)),
    ],
    [
      5,
      fc
        .tuple(
          pick,
          pick,
          fc.constantFrom('right', 'right', 'stale', 'same'),
          fc.integer({ min: 0, max: 3 }),
          textArb,
          pick,
        )
        .map(
          ([s, b, variant, calls, text, p]) =>
            new JournalTurnCommand(s, b, variant as 'right', calls, text, p),
        ),
    ],
    [
      5,
      fc
        .tuple(pick, pick, fc.boolean(), fc.boolean(), fc.boolean(), pick, textArb, fc.boolean())
        .map(
          ([s, b, end, known, alsoKnown, p, text, isError]) =>
            new JournalCallCommand(s, b, end, known || alsoKnown, p, text, isError),
        ),
    ],
    [
      3,
      fc
        .tuple(
          pick,
          pick,
          fc.constantFrom(undefined, undefined, 'next', 'next', 'stale'),
          fc.boolean(),
          fc.boolean(),
          pick,
          textArb,
        )
        .map(
          ([s, b, answer, known, alsoKnown, p, text]) =>
            new JournalQuestionCommand(
              s,
              b,
              answer as 'next' | undefined,
              known || alsoKnown,
              p,
              text,
            ),
        ),
    ],
    [
      2,
      fc
        .tuple(fc.nat({ max: 12 }), pick, pick)
        .map(([which, s, b]) => new BadCallCommand(which, s, b)),
    ],
    [1, fc.tuple(pick, fc.boolean()).map(([s, unknown]) => new DeleteSessionCommand(s, unknown))],
  ];
  if (has.commitTurns) {
    const turns = fc.array(turnSpecArb, { minLength: 1, maxLength: 3 });
    weighted.push(
      [
        3,
        fc
          .tuple(pick, branch, turns, fc.boolean())
          .map(([s, b, specs, refuse]) => new CommitTurnsCommand('head', s, b, specs, refuse, 0)),
      ],
      [
        1,
        fc
          .tuple(pick, pick, pick, turns, fc.boolean())
          .map(
            ([s, b, p, specs, refuse]) => new CommitTurnsCommand('stale', s, b, specs, refuse, p),
          ),
      ],
      [
        2,
        fc.tuple(pick, branch).map(([s, b]) => new CommitTurnsCommand('retry', s, b, [], false, 0)),
      ],
    );
  }
  if (has.reopen) weighted.push([1, fc.constant(null).map(() => new ReopenCommand())]);
  if (has.crash) {
    weighted.push([
      12,
      fc
        .tuple(
          fc.constantFrom(...CRASH_OPS),
          // Up to a commit's statement count in the SQL store (8 with BEGIN and COMMIT; 13
          // before the one-statement lookup): most kills land inside the write, some after it.
          fc.integer({ min: 1, max: 8 }),
          pick,
          pick,
          pick,
          turnSpecArb,
        )
        .map(([op, k, s, b, p, spec]) => new CrashCommand(op, k, s, b, p, spec)),
    ]);
  }
  if (has.crash && has.commitTurns) {
    weighted.push([
      3,
      fc
        .tuple(
          // 2 or 3 turns in one write: 9 to 12 statements in the SQL store (BEGIN, the lookup, a
          // checkpoint each, messages, links, head move, session touch, 2 to clear a journaled
          // turn, COMMIT). Up to 13: most kills land inside the transaction, some right after
          // its COMMIT or past its end (the write finished), whatever the turns and journal.
          fc.integer({ min: 1, max: 13 }),
          pick,
          pick,
          pick,
          turnSpecArb,
          fc.array(turnSpecArb, { minLength: 1, maxLength: 2 }),
        )
        .map(([k, s, b, p, spec, more]) => new CrashCommand('commitTurns', k, s, b, p, spec, more)),
    ]);
  }
  // fc.commands takes a list; repeating an arbitrary is how it is weighted.
  return weighted.flatMap(([weight, arbitrary]) => Array.from({ length: weight }, () => arbitrary));
}
