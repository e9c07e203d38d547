import {
  type Checkpoint,
  ConfigError,
  type PendingTurn,
  SessionConflictError,
  type SessionStore,
  validateHistory,
} from '@mh/core';
import { canonicalJson } from '@mh/core/internal';
import type { ModelPending, ModelSession } from './store-model.js';

/** A breach of the `SessionStore` contract, found by comparing the store with the model. */
export class ContractViolation extends Error {
  override readonly name = 'ContractViolation';
}

/** Throws a `ContractViolation`. */
export function violation(message: string): never {
  throw new ContractViolation(message);
}

const show = (value: unknown): string => {
  const text = value === undefined ? 'undefined' : canonicalJson(value);
  return text.length > 400 ? `${text.slice(0, 400)}…` : text;
};

/** Fails unless `actual` and `expected` have the same canonical JSON (the same bytes). */
export function same(actual: unknown, expected: unknown, what: string): void {
  const a = actual === undefined ? 'undefined' : canonicalJson(actual);
  const e = expected === undefined ? 'undefined' : canonicalJson(expected);
  if (a !== e) violation(`${what}: expected ${show(expected)}, got ${show(actual)}`);
}

/** The typed errors the port promises. */
export type Expected = 'conflict' | 'config';

/**
 * Awaits a call that must fail with a typed error (`SessionConflictError` or `ConfigError`,
 * checked with `isInstance`), and returns it; anything else is a violation.
 */
export async function expectRejection(
  promise: Promise<unknown>,
  expected: Expected,
  what: string,
): Promise<unknown> {
  let outcome: { error: unknown } | undefined;
  try {
    await promise;
  } catch (error) {
    outcome = { error };
  }
  if (!outcome)
    violation(
      `${what}: expected ${expected === 'conflict' ? 'SessionConflictError' : 'ConfigError'}, but it succeeded`,
    );
  const ok =
    expected === 'conflict'
      ? SessionConflictError.isInstance(outcome.error)
      : ConfigError.isInstance(outcome.error);
  if (!ok) {
    const got =
      outcome.error instanceof Error
        ? `${outcome.error.name}: ${outcome.error.message}`
        : String(outcome.error);
    violation(
      `${what}: expected ${expected === 'conflict' ? 'SessionConflictError' : 'ConfigError'}, got ${got}`,
    );
  }
  return outcome.error;
}

/**
 * Runs a call that must fail with `SessionConflictError` carrying `fields` (the session, the head
 * the call expected and the head the store has); anything else is a violation naming the call.
 */
export async function expectConflict(
  promise: Promise<unknown>,
  fields: {
    readonly sessionId: string;
    readonly expectedHead: string | null;
    readonly actualHead: string | null;
  },
  what: string,
): Promise<void> {
  const error = await expectRejection(promise, 'conflict', what);
  const { sessionId, expectedHead, actualHead } = error as Record<string, unknown>;
  same({ sessionId, expectedHead, actualHead }, fields, `${what}: SessionConflictError fields`);
}

/** Runs a call that must succeed; a thrown error is a violation naming the call. */
export async function expectSuccess<T>(promise: Promise<T>, what: string): Promise<T> {
  try {
    return await promise;
  } catch (error) {
    if (error instanceof ContractViolation) throw error;
    const got = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    return violation(`${what}: expected success, got ${got}`);
  }
}

function pendingShape(pending: PendingTurn | ModelPending | undefined): unknown {
  if (!pending) return undefined;
  return {
    baseHead: pending.baseHead,
    assistant: pending.assistant,
    calls: pending.calls.map(({ call, started, result, question, answers }) => ({
      id: call.id,
      started,
      result,
      question,
      answers,
    })),
  };
}

const checkpointShape = (c: Checkpoint): unknown => ({
  id: c.id,
  sessionId: c.sessionId,
  parentId: c.parentId,
  turn: c.turn,
  messageIds: c.messageIds,
  meta: c.meta,
});

/**
 * Compares everything the store says about a session with the model: the session, its branches,
 * every branch's history (messages byte-equal, checkpoints chained root first, no turn lost or
 * duplicated, pairing valid) and pending turn. `only` narrows the branches to one (after a
 * command that wrote only there); `deep` adds `listCheckpoints` and `load` of the current branch.
 */
export async function checkSession(
  store: SessionStore,
  session: ModelSession,
  scope: { readonly deep: boolean; readonly only?: string },
): Promise<void> {
  const where = `session ${session.id}`;
  const info = await expectSuccess(store.getSession(session.id), `getSession(${session.id})`);
  if (!info) violation(`${where}: getSession returned undefined for a live session`);
  const currentChain = session.chain(session.branch(session.current).head);
  same(
    { id: info.id, title: info.title, branch: info.branch, turns: info.turns },
    { id: session.id, title: session.title, branch: session.current, turns: currentChain.length },
    `${where}: getSession`,
  );
  if (scope.only === undefined) {
    const branches = await expectSuccess(
      store.listBranches(session.id),
      `listBranches(${session.id})`,
    );
    same(
      [...branches]
        .sort((a, b) => (a.name < b.name ? -1 : 1))
        .map(({ name, head, turns }) => ({ name, head, turns })),
      session.branchNames().map((name) => {
        const head = session.branch(name).head;
        return { name, head, turns: session.chain(head).length };
      }),
      `${where}: listBranches`,
    );
  }
  for (const name of scope.only === undefined ? session.branchNames() : [scope.only]) {
    await checkBranch(store, session, name, scope.deep);
  }
  if (scope.deep) {
    const current = await expectSuccess(store.load(session.id), `load(${session.id})`);
    same(current.branch, session.current, `${where}: load() without a branch`);
  }
}

async function checkBranch(
  store: SessionStore,
  session: ModelSession,
  name: string,
  deep: boolean,
): Promise<void> {
  const where = `session ${session.id}`;
  const branch = session.branch(name);
  const chain = session.chain(branch.head);
  const state = await expectSuccess(store.load(session.id, name), `load(${session.id}, ${name})`);
  same(
    { sessionId: state.sessionId, branch: state.branch, head: state.head },
    { sessionId: session.id, branch: name, head: branch.head },
    `${where}: load(${name}) head`,
  );
  same(
    state.messages,
    chain.flatMap((c) => c.messages),
    `${where}: load(${name}) messages`,
  );
  same(
    state.checkpoints.map(checkpointShape),
    chain.map((c) => ({
      id: c.id,
      sessionId: session.id,
      parentId: c.parentId,
      turn: c.turn,
      messageIds: c.messages.map((m) => m.id),
      meta: c.meta,
    })),
    `${where}: load(${name}) checkpoints`,
  );
  if (new Set(state.checkpoints.map((c) => c.id)).size !== state.checkpoints.length) {
    violation(`${where}: load(${name}) holds a checkpoint twice`);
  }
  const violations = validateHistory(state.messages);
  if (violations.length > 0)
    violation(`${where}: load(${name}) breaks pairing: ${show(violations)}`);
  const pending = await expectSuccess(
    store.pendingTurn(session.id, name),
    `pendingTurn(${session.id}, ${name})`,
  );
  same(pendingShape(pending), pendingShape(branch.pending), `${where}: pendingTurn(${name})`);
  if (!deep) return;
  const listed = await expectSuccess(
    store.listCheckpoints(session.id, name),
    `listCheckpoints(${session.id}, ${name})`,
  );
  same(
    listed.map(checkpointShape),
    state.checkpoints.map(checkpointShape),
    `${where}: listCheckpoints(${name})`,
  );
}

/** A deleted session is gone: getSession undefined, load a `ConfigError`. */
export async function checkGone(store: SessionStore, id: string): Promise<void> {
  const info = await expectSuccess(store.getSession(id), `getSession(${id})`);
  if (info !== undefined) violation(`session ${id} was deleted but getSession still returns it`);
  await expectRejection(store.load(id), 'config', `load(${id}) of a deleted session`);
}
