import type { AgentEvent, Message, Provider, RunResult, SessionStore, Tool } from '@mh/core';
import type { PlannedCall, ScriptedModel } from './scripted-model.js';
import type { SideEffectTools } from './side-effect-tools.js';

/** What the suite drives: the public surface of `@mh/sdk`'s `Agent` that sessions touch. */
export interface ConformanceAgent {
  run(prompt: string, options?: { readonly signal?: AbortSignal }): Promise<RunResult>;
  stream(prompt: string, options?: { readonly signal?: AbortSignal }): AsyncIterable<AgentEvent>;
  resume(options?: {
    readonly decisions?: readonly (
      | { readonly callId: string; readonly approve: true; readonly token?: string }
      | {
          readonly callId: string;
          readonly approve: false;
          readonly message?: string;
          readonly token?: string;
        }
      | { readonly callId: string; readonly answer: unknown; readonly token?: string }
    )[];
  }): Promise<RunResult | undefined>;
  /**
   * The token of a decision on `interrupt` with arguments `input`, bound to where the session is
   * now (only with an `approvalKey`; when absent, the suite makes no moved-session tokens).
   */
  approvalToken?(
    interrupt: { readonly callId: string; readonly tool: string },
    input: unknown,
  ): string;
  reset(): Promise<void>;
  load(): Promise<readonly Message[]>;
  rewind(checkpointId: string | null, newBranch: string): Promise<readonly Message[]>;
  fork(newBranch: string): Promise<readonly Message[]>;
  switchBranch(branch: string): Promise<readonly Message[]>;
  readonly history: readonly Message[];
  readonly session: { readonly id: string; readonly branch: string } | undefined;
}

/** What the suite gives the caller's factory to build an agent from. */
export interface AgentParts {
  /** The suite's deterministic model. */
  readonly provider: Provider;
  /** read_note, put_note, send_once, approved_send and asked_send (see the README). */
  readonly tools: Tool[];
  /** The session: the store under test and this sequence's session id. */
  readonly session: { readonly store: SessionStore; readonly id: string };
  /**
   * When set, the agent must compact at this context window (tokens), so compaction runs on
   * every turn or two; when absent, the agent's defaults.
   */
  readonly contextWindow?: number;
}

/** What a crash command asks the caller's child process to do (see `AgentConformanceOptions.crash`). */
export interface CrashJob {
  /** The session to work on (its current branch). */
  readonly sessionId: string;
  /** The prompt to run, `Pn please`, and its label `Pn`. */
  readonly prompt: string;
  readonly label: string;
  /**
   * When given, the child resumes with these decisions instead of running `prompt` (`label`'s
   * turn waits for them; `plan` then holds the turns after it).
   */
  readonly decisions?: readonly (
    | { readonly callId: string; readonly approve: true }
    | { readonly callId: string; readonly approve: false; readonly message: string }
  )[];
  /** The plan to give a `ScriptedModel` for `label`. */
  readonly plan: readonly (readonly PlannedCall[])[];
  /** The `ScriptedModel` call-id prefix, unique to this child. */
  readonly callPrefix: string;
  /** The side file to give `sideEffectTools`. */
  readonly sideFile: string;
  /** Wrap the store in `killAfterWrites(store, writes)`: the child dies after that many writes. */
  readonly writes: number;
  /** The context window to compact at, when set. */
  readonly contextWindow?: number;
}

/** The system under test for one command sequence. */
export interface AgentWorld {
  /** The store agents are built on; a restart replaces it with one opened again. */
  store: SessionStore;
  /** Whether `store` is one the suite opened (by a restart), so the suite closes it. */
  ownsStore: boolean;
  /** Opens the storage again, as the next process would (absent: restarts keep the store). */
  readonly reopen: (() => Promise<SessionStore>) | undefined;
  readonly sessionId: string;
  readonly model: ScriptedModel;
  readonly tools: SideEffectTools;
  /** The agent the commands drive; replaced by a reopen. */
  agent: ConformanceAgent;
  /** The file `send_once` appends its call ids to. */
  readonly sideFile: string;
  /** Runs a crash job in a child process (absent: no crash commands). */
  readonly crash: ((job: CrashJob) => Promise<void>) | undefined;
  /** Crash jobs started, for unique call ids. */
  crashes: number;
  /** Compactions the runs reported (proof that the tiny window compacted). */
  compactions: number;
  /** The window agents are created with from now on (a reopen may make it tiny). */
  contextWindow: number | undefined;
  /** A new agent on the same session (another writer, or the next process), at `contextWindow`. */
  create(): ConformanceAgent;
}
