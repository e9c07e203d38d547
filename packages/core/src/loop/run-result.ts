import type { CompactionEvent, CompactionRecord } from '../compaction/record.js';
import type { Guard } from '../errors.js';
import type { HistoryRepair } from '../messages/history-repair.js';
import type { Message, ToolResultBlock, ToolUseBlock } from '../messages/message.js';
import type { Usage } from '../messages/usage.js';
import type { OutputDelta } from '../output/deltas.js';
import type { JsonSchema, StopReason, StreamEvent } from '../ports/provider.js';
import type { AskedQuestion, Permission } from '../ports/tool.js';
import type { ToolOutcome } from '../ports/tool-executor.js';

/** How a run ended. */
export const RUN_STATUSES = ['completed', 'guard', 'cancelled', 'error', 'interrupted'] as const;
/**
 * How a run ended: the model finished, a guard tripped, the caller cancelled, it failed, or it
 * waits for a person (`interrupted`: see `RunResult.interrupts`).
 */
export type RunStatus = (typeof RUN_STATUSES)[number];

/** The outcome of one run (one prompt, as many turns as it took). */
export interface RunResult {
  /** The run's id (also on its spans). */
  readonly runId: string;
  /** How it ended. */
  readonly status: RunStatus;
  /** The guard that stopped it when `status` is `guard`. */
  readonly guard?: Guard;
  /** The failure when `status` is `error` (a `ProviderError`, a `HarnessError`, …), or the guard's error. */
  readonly error?: Error;
  /** The text of the last assistant message of this run ('' when none). */
  readonly text: string;
  /** Why the model last stopped, when it did. */
  readonly stopReason?: StopReason;
  /** Model calls made in this run. */
  readonly turns: number;
  /** Tokens used by this run only. */
  readonly usage: Usage;
  /** Cost of this run only, USD (0 for models without a price). */
  readonly costUsd: number;
  /** Wall time of the run, in milliseconds. */
  readonly durationMs: number;
  /**
   * The whole history after the run; always satisfies the pairing invariant. The caller's to keep
   * and change. An agent's run copies it from the conversation when it is first read, so a run
   * whose `messages` nobody reads does not pay for a copy of a long conversation.
   */
  readonly messages: readonly Message[];
  /**
   * The messages this run added (a suffix of `messages`, unless repairs changed older ones). A
   * compaction's summary (or drop note) is part of it only when it folded messages of this run;
   * earlier runs' messages are not, even when this run trimmed or summarised them.
   */
  readonly newMessages: readonly Message[];
  /** Repairs made to the history during the run (input repair, cancellation). */
  readonly repairs: readonly HistoryRepair[];
  /** Compactions made during the run, in order (skipped ones included). */
  readonly compactions: readonly CompactionRecord[];
  /**
   * The typed final answer, validated by the schema the run asked for (`LoopOptions.output`);
   * absent without one, and when the run did not complete.
   */
  readonly output?: unknown;
  /**
   * The calls that wait for a person when `status` is `interrupted`, in the order of the turn:
   * approve or deny each with `agent.resume({ decisions })`.
   */
  readonly interrupts?: readonly Interrupt[];
  /**
   * The turn an interrupt holds back (`status` `interrupted`): its assistant message and the
   * results of the calls that ran. It is not in `messages` (which stays paired) until resumed.
   */
  readonly pendingTurn?: HeldTurn;
}

/**
 * A person's answer to a call that waits (`RunResult.interrupts`). For an `approval` interrupt:
 * approve it (optionally with edited arguments, validated again), or deny it (the model reads
 * `message` as the call's error result). For a `question` interrupt: `answer` it with a JSON
 * value (checked against the question's schema); the call runs again from the start and its
 * question gets the answer. With an `approvalKey`, each decision carries the interrupt's `token`
 * (for edited arguments, a token made for them with `agent.approvalToken`).
 */
export type Decision =
  | {
      readonly callId: string;
      readonly answer: unknown;
      readonly token?: string;
    }
  | {
      readonly callId: string;
      readonly approve: true;
      readonly input?: unknown;
      readonly token?: string;
    }
  | {
      readonly callId: string;
      readonly approve: false;
      readonly message?: string;
      readonly token?: string;
    };

/** What a call waits for: a person's approval before it runs, or their answer to its question. */
export const INTERRUPT_KINDS = ['approval', 'question'] as const;
/** What a call waits for (see `Interrupt`). */
export type InterruptKind = (typeof INTERRUPT_KINDS)[number];

/**
 * A tool call that waits for a person: an `approval` (the call has not run; decide with `{ callId,
 * approve }`) or a `question` its tool asked while running (`ToolRunContext.interrupt`; answer
 * with `{ callId, answer }`).
 */
export type Interrupt = ApprovalInterrupt | QuestionInterrupt;

/** A call that waits for a person's approval before it runs. */
export interface ApprovalInterrupt extends InterruptFields {
  /** What it waits for. */
  readonly kind: 'approval';
}

/** A call whose tool asked a question and waits for the answer (it runs again, answered). */
export interface QuestionInterrupt extends InterruptFields {
  /** What it waits for. */
  readonly kind: 'question';
  /** The question, as the person reads it (also `reason`). */
  readonly question: string;
  /** JSON Schema the answer must satisfy, when the tool gave one. */
  readonly schema?: JsonSchema;
  /** The answers the call already got to its earlier questions, oldest first. */
  readonly answers: readonly unknown[];
}

/** What every interrupt says of its call. */
export interface InterruptFields {
  /** The call's id: what a decision names. */
  readonly callId: string;
  /** The tool. */
  readonly tool: string;
  /** The arguments the model gave. */
  readonly input: unknown;
  /** The permission the tool declares. */
  readonly permission?: Permission;
  /** Why it waits, as the person reads it. */
  readonly reason: string;
  /** A signature binding a decision to this call (with an `approvalKey`); pass it back. */
  readonly token?: string;
}

/** A turn held back by interrupts: what `resume` finishes. */
export interface HeldTurn {
  /** The assistant message whose calls are pending. */
  readonly assistant: Message;
  /** Results of the calls that ran before the run stopped. */
  readonly results: readonly ToolResultBlock[];
  /** The questions calls stopped on (`ToolRunContext.interrupt`), absent when none did. */
  readonly questions?: readonly HeldQuestion[];
}

/** A question a held turn's call stopped on. */
export interface HeldQuestion extends AskedQuestion {
  /** The call that asked it. */
  readonly callId: string;
}

/**
 * What `Agent.stream()` yields: the provider's stream events, plus the loop's own. The stream ends
 * with exactly one `run-end`.
 */
export type AgentEvent =
  | StreamEvent
  | { readonly type: 'run-start'; readonly runId: string; readonly model: string }
  | { readonly type: 'turn-start'; readonly turn: number }
  | { readonly type: 'tool-execution-start'; readonly call: ToolUseBlock }
  | { readonly type: 'tool-execution-end'; readonly outcome: ToolOutcome }
  | {
      readonly type: 'turn-end';
      readonly turn: number;
      readonly usage: Usage;
      readonly costUsd: number;
    }
  | { readonly type: 'history-repair'; readonly repairs: readonly HistoryRepair[] }
  | CompactionEvent
  | OutputDelta
  | { readonly type: 'run-end'; readonly result: RunResult };
