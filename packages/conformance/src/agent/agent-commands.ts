import fc from 'fast-check';
import {
  ForkCommand,
  ReopenCommand,
  ResetCommand,
  RewindCommand,
  SwitchCommand,
} from './branch-commands.js';
import type { AgentCommand, Plan } from './command-support.js';
import {
  RepeatDecisionCommand,
  StaleTokenCommand,
  UnknownDecisionCommand,
} from './decision-commands.js';
import {
  InterruptCommand,
  QuestionCommand,
  RaceDecisionCommand,
  ResumeCommand,
} from './interrupt-commands.js';
import { AbandonCommand, CancelCommand, PromptCommand } from './prompt-commands.js';
import {
  CrashCommand,
  CrashDecisionCommand,
  RaceCommand,
  RaceResumeCommand,
} from './race-commands.js';
import { RestartCommand } from './restart-command.js';
import type { PlannedCall } from './scripted-model.js';

const callArb: fc.Arbitrary<PlannedCall> = fc.record({
  tool: fc.constantFrom('read_note', 'put_note', 'send_once'),
});
const planArb: fc.Arbitrary<Plan> = fc.array(fc.array(callArb, { minLength: 1, maxLength: 3 }), {
  maxLength: 3,
});

/**
 * The command arbitraries of the Agent suite. Interrupts, resumes and refused decisions come
 * several times, so that a sequence often interrupts, does something else, then decides.
 */
export function agentCommands(options: {
  readonly contextWindow: number;
  readonly crash: boolean;
  readonly restart: boolean;
}): fc.Arbitrary<AgentCommand>[] {
  const interrupt = planArb.map((plan) => new InterruptCommand(plan));
  const resume = fc
    .constantFrom('approve' as const, 'approve' as const, 'deny' as const, 'undecided' as const)
    .map((choice) => new ResumeCommand(choice));
  const decideAgain = fc
    .tuple(fc.nat(20), fc.boolean())
    .map(([pick, approve]) => new RepeatDecisionCommand(pick, approve));
  const staleToken = fc
    .constantFrom('earlier' as const, 'moved' as const)
    .map((kind) => new StaleTokenCommand(kind));
  const crash = fc
    .tuple(planArb, fc.nat(12))
    .map(([plan, writes]) => new CrashCommand(plan, writes));
  const crashDecision = fc
    .tuple(fc.nat(8), fc.boolean())
    .map(([writes, approve]) => new CrashDecisionCommand(writes, approve));
  return [
    ...(options.crash
      ? [crash, crash, crashDecision, crashDecision, crashDecision, crashDecision]
      : []),
    planArb.map((plan) => new PromptCommand(plan)),
    fc
      .tuple(
        planArb,
        fc.oneof(
          fc.record({
            kind: fc.constant('model' as const),
            turn: fc.nat(3),
            partial: fc.boolean(),
          }),
          fc.record({ kind: fc.constant('tool' as const), turn: fc.nat(3) }),
        ),
      )
      .map(([plan, at]) => new CancelCommand(plan, at)),
    fc
      .tuple(planArb, fc.integer({ min: 1, max: 12 }))
      .map(([plan, n]) => new AbandonCommand(plan, n)),
    fc.constant(new ResetCommand()),
    fc.nat(20).map((pick) => new RewindCommand(pick)),
    fc.constant(new ForkCommand()),
    fc.nat(20).map((pick) => new SwitchCommand(pick)),
    fc
      .option(fc.constant(options.contextWindow), { freq: 2 })
      .map((window) => new ReopenCommand(window ?? undefined)),
    fc.tuple(planArb, planArb).map(([a, b]) => new RaceCommand(a, b)),
    planArb.map((plan) => new RaceResumeCommand(plan)),
    ...[interrupt, interrupt, interrupt],
    ...[resume, resume, resume, resume, resume],
    ...[decideAgain, decideAgain, staleToken, staleToken],
    fc.constant(new UnknownDecisionCommand()),
    fc.constant(new RaceDecisionCommand()),
    ...(options.restart ? [fc.constant(new RestartCommand())] : []),
    planArb.map((plan) => new QuestionCommand(plan)),
  ];
}
