import {
  type AskedQuestion,
  type BranchInfo,
  type Checkpoint,
  type CheckpointMeta,
  type CommitOptions,
  ConfigError,
  type Message,
  type PendingTurn,
  SessionConflictError,
  type SessionInfo,
  type SessionState,
  type SessionStore,
  type ToolCallJournalEntry,
  type ToolResultBlock,
  toolUsesOf,
} from '@mh/core';
import { checkAnswers, checkAskedQuestion } from '@mh/core/internal';

interface Session {
  info: { id: string; title?: string; createdAt: number; updatedAt: number; branch: string };
  branches: Map<string, { head: string | null; updatedAt: number }>;
  pending: Map<
    string,
    {
      baseHead: string | null;
      assistant: Message;
      calls: Map<
        string,
        {
          started: boolean;
          result?: ToolResultBlock;
          question?: AskedQuestion;
          answers?: readonly unknown[];
        }
      >;
    }
  >;
}

/**
 * A SessionStore in memory, for the Agent's tests (the SQLite store has its own contract suite).
 * It keeps JSON copies, so what is loaded never aliases what was committed.
 */
export class MemorySessionStore implements SessionStore {
  readonly sessions = new Map<string, Session>();
  readonly checkpoints = new Map<string, { checkpoint: Checkpoint; messages: string }>();
  #next = 0;

  #session(id: string): Session {
    const session = this.sessions.get(id);
    if (!session) throw new ConfigError('sessionId', `no session ${id}`);
    return session;
  }

  async createSession(options: { id?: string; title?: string } = {}): Promise<SessionInfo> {
    const id = options.id ?? `s${this.#next++}`;
    const now = Date.now();
    this.sessions.set(id, {
      info: { id, title: options.title, createdAt: now, updatedAt: now, branch: 'main' },
      branches: new Map([['main', { head: null, updatedAt: now }]]),
      pending: new Map(),
    });
    return { ...this.#session(id).info, turns: 0 };
  }

  async getSession(id: string): Promise<SessionInfo | undefined> {
    return this.sessions.has(id) ? this.#info(id) : undefined;
  }

  #info(id: string): SessionInfo {
    const session = this.#session(id);
    return {
      ...session.info,
      turns: this.#chain(session.branches.get(session.info.branch)?.head ?? null).length,
    };
  }

  async listSessions(): Promise<SessionInfo[]> {
    return [...this.sessions.keys()].map((id) => this.#info(id));
  }

  async deleteSession(id: string): Promise<void> {
    this.sessions.delete(id);
  }

  #chain(head: string | null): Checkpoint[] {
    const chain: Checkpoint[] = [];
    for (let id = head; id !== null; ) {
      const entry = this.checkpoints.get(id);
      if (!entry) break;
      chain.unshift(entry.checkpoint);
      id = entry.checkpoint.parentId;
    }
    return chain;
  }

  async load(id: string, branch?: string): Promise<SessionState> {
    const session = this.#session(id);
    const name = branch ?? session.info.branch;
    const head = session.branches.get(name);
    if (!head) throw new ConfigError('branch', `no branch ${name}`);
    const checkpoints = this.#chain(head.head);
    const messages = checkpoints.flatMap(
      (checkpoint) =>
        JSON.parse(this.checkpoints.get(checkpoint.id)?.messages ?? '[]') as Message[],
    );
    return { sessionId: id, branch: name, head: head.head, messages, checkpoints };
  }

  readonly refusesPendingTurn = true;

  async commit(
    id: string,
    turn: { messages: readonly Message[]; meta: CheckpointMeta },
    options: CommitOptions,
  ): Promise<Checkpoint> {
    const session = this.#session(id);
    const name = options.branch ?? session.info.branch;
    const branch = session.branches.get(name);
    if (!branch) throw new ConfigError('branch', `no branch ${name}`);
    if (branch.head !== options.expectedHead)
      throw new SessionConflictError(id, options.expectedHead, branch.head);
    const pending = session.pending.get(name);
    if (options.pendingTurn === 'refuse' && pending && pending.baseHead === branch.head)
      throw new SessionConflictError(id, branch.head, branch.head, `${name} has a pending turn`);
    const parent = branch.head === null ? undefined : this.checkpoints.get(branch.head)?.checkpoint;
    const checkpoint: Checkpoint = {
      id: `cp${this.#next++}`,
      sessionId: id,
      parentId: branch.head,
      turn: (parent?.turn ?? 0) + 1,
      createdAt: Date.now(),
      messageIds: turn.messages.map((message) => message.id),
      meta: turn.meta,
    };
    this.checkpoints.set(checkpoint.id, { checkpoint, messages: JSON.stringify(turn.messages) });
    branch.head = checkpoint.id;
    session.pending.delete(name);
    return checkpoint;
  }

  async listCheckpoints(id: string, branch?: string): Promise<Checkpoint[]> {
    return [...(await this.load(id, branch)).checkpoints];
  }

  async listBranches(id: string): Promise<BranchInfo[]> {
    return [...this.#session(id).branches].map(([name, branch]) => ({
      name,
      head: branch.head,
      turns: this.#chain(branch.head).length,
      updatedAt: branch.updatedAt,
    }));
  }

  async rewind(id: string, checkpointId: string | null, newBranch: string): Promise<SessionState> {
    const session = this.#session(id);
    session.branches.set(newBranch, { head: checkpointId, updatedAt: Date.now() });
    session.info.branch = newBranch;
    return this.load(id, newBranch);
  }

  async fork(id: string, newBranch: string, fromBranch?: string): Promise<SessionState> {
    const session = this.#session(id);
    const from = session.branches.get(fromBranch ?? session.info.branch);
    return this.rewind(id, from?.head ?? null, newBranch);
  }

  async switchBranch(id: string, branch: string): Promise<SessionState> {
    this.#session(id).info.branch = branch;
    return this.load(id, branch);
  }

  async journalTurn(
    id: string,
    branch: string,
    baseHead: string | null,
    assistant: Message,
  ): Promise<void> {
    // Compare-and-set on the head, as the port requires of every head-dependent write.
    const session = this.#session(id);
    const head = session.branches.get(branch)?.head ?? null;
    if (head !== baseHead) throw new SessionConflictError(id, baseHead, head);
    const existing = session.pending.get(branch);
    if (existing && existing.baseHead === head) {
      if (existing.assistant.id === assistant.id) return;
      throw new SessionConflictError(id, head, head, 'another writer journaled a turn here');
    }
    const calls = new Map(toolUsesOf(assistant).map((call) => [call.id, { started: false }]));
    session.pending.set(branch, {
      baseHead,
      assistant: JSON.parse(JSON.stringify(assistant)) as Message,
      calls,
    });
  }

  async journalStart(id: string, branch: string, callId: string): Promise<void> {
    const entry = this.#session(id).pending.get(branch)?.calls.get(callId);
    // A start is a claim, as in the SQL store: a call is started once.
    if (!entry || entry.started) {
      const head = this.#session(id).branches.get(branch)?.head ?? null;
      throw new SessionConflictError(id, head, head, `call ${callId} is not startable`);
    }
    entry.started = true;
  }

  async journalEnd(
    id: string,
    branch: string,
    callId: string,
    result: ToolResultBlock,
  ): Promise<void> {
    const entry = this.#session(id).pending.get(branch)?.calls.get(callId);
    if (!entry) {
      const head = this.#session(id).branches.get(branch)?.head ?? null;
      throw new SessionConflictError(id, head, head, `call ${callId} is not in the pending turn`);
    }
    entry.started = true;
    entry.result = result;
    entry.question = undefined;
  }

  async journalQuestion(
    id: string,
    branch: string,
    callId: string,
    question: AskedQuestion,
  ): Promise<void> {
    const checked = checkAskedQuestion(question);
    const entry = this.#session(id).pending.get(branch)?.calls.get(callId);
    if (!entry || entry.result) {
      const head = this.#session(id).branches.get(branch)?.head ?? null;
      throw new SessionConflictError(id, head, head, `call ${callId} cannot wait on a question`);
    }
    entry.started = true;
    entry.question = JSON.parse(JSON.stringify(checked)) as AskedQuestion;
  }

  async journalAnswer(
    id: string,
    branch: string,
    callId: string,
    answers: readonly unknown[],
  ): Promise<void> {
    const checked = checkAnswers(answers);
    const entry = this.#session(id).pending.get(branch)?.calls.get(callId);
    // A claim, as journalStart: only the writer that answers the question it waits on runs it.
    if (!entry?.question || entry.result || entry.question.answers.length !== checked.length - 1) {
      const head = this.#session(id).branches.get(branch)?.head ?? null;
      throw new SessionConflictError(
        id,
        head,
        head,
        `call ${callId} does not wait on this question`,
      );
    }
    entry.question = undefined;
    entry.answers = JSON.parse(JSON.stringify(checked)) as unknown[];
  }

  async pendingTurn(id: string, branch: string): Promise<PendingTurn | undefined> {
    const pending = this.#session(id).pending.get(branch);
    if (!pending) return undefined;
    const calls: ToolCallJournalEntry[] = toolUsesOf(pending.assistant).map((call) => {
      const { question, answers, ...entry } = pending.calls.get(call.id) ?? { started: false };
      return {
        call,
        ...entry,
        ...(question ? { question } : {}),
        ...(answers ? { answers } : {}),
      };
    });
    return { baseHead: pending.baseHead, assistant: pending.assistant, calls };
  }

  async close(): Promise<void> {}
}
