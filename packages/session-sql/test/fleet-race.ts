import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SessionStore } from '@mh/core';
import { expect } from 'vitest';
import { type Child, go, startChild } from './process-harness.js';

/** One line of a fleet worker's log. */
export type FleetOutcome =
  | {
      worker: string;
      outcome: 'ok';
      session: string;
      tag: string;
      expected: string | null;
      id: string;
    }
  | { worker: string; outcome: 'landed-late'; session: string; tag: string }
  | {
      worker: string;
      outcome: 'conflict';
      session: string;
      expected: string | null;
      actual: string | null;
    }
  | {
      worker: string;
      outcome: 'unavailable';
      op: string;
      failure: string;
      session: string;
      tag: string;
    }
  | { worker: string; outcome: 'untyped' | 'gave-up'; [key: string]: unknown };

/** What a fleet run was asked to do. */
export interface FleetPlan {
  /** A SQLite path or a PostgreSQL URL. */
  readonly spec: string;
  readonly workers: number;
  readonly sessions: number;
  /** Commits per worker. */
  readonly commits: number;
  /** Folder for the workers' logs. */
  readonly dir: string;
  /**
   * Commits each worker makes before it prints `paused` and waits for a second `go`;
   * unset, the workers never pause.
   */
  readonly pauseAfter?: number;
}

/**
 * Creates the sessions `s0…`, starts the workers and, once all are loaded, sends them `go`.
 * With `pauseAfter`, the caller sends the second `go` (after every worker printed `paused`).
 */
export async function startFleet(
  plan: FleetPlan,
  open: () => Promise<SessionStore>,
): Promise<{ children: Child[]; logs: string[] }> {
  const store = await open();
  for (let n = 0; n < plan.sessions; n++) await store.createSession({ id: `s${n}` });
  await store.close();
  const logs = Array.from({ length: plan.workers }, (_, i) => join(plan.dir, `w${i}.log`));
  const children = logs.map((log, i) =>
    startChild('fleet-worker.mjs', [
      plan.spec,
      `w${i}`,
      String(plan.sessions),
      String(plan.commits),
      log,
      ...(plan.pauseAfter === undefined ? [] : [String(plan.pauseAfter)]),
    ]),
  );
  await Promise.all(children.map((child) => child.ready));
  go(children);
  return { children, logs };
}

/** Every line the workers logged. */
export function readOutcomes(logs: readonly string[]): FleetOutcome[] {
  return logs.flatMap((log) =>
    existsSync(log)
      ? readFileSync(log, 'utf8')
          .split('\n')
          .filter((line) => line.length > 0)
          .map((line) => JSON.parse(line) as FleetOutcome)
      : [],
  );
}

/**
 * Checks a finished fleet run against the store: every turn a worker saw land is in its
 * session exactly once, every acknowledged commit sits on the head it was built on, no turn is
 * lost or doubled, every conflict was a `SessionConflictError` naming a head that had moved,
 * and no checkpoint exists outside the sessions' chains. Returns the outcome counts.
 */
export async function verifyFleet(
  plan: FleetPlan,
  outcomes: readonly FleetOutcome[],
  store: SessionStore,
  checkpointRows: number,
): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const line of outcomes) counts[line.outcome] = (counts[line.outcome] ?? 0) + 1;
  expect(
    outcomes.filter((line) => line.outcome === 'untyped' || line.outcome === 'gave-up'),
  ).toEqual([]);
  const tags = new Map<string, string>();
  for (const line of outcomes) {
    if (line.outcome === 'ok' || line.outcome === 'landed-late') {
      expect(tags.has(line.tag), `turn ${line.tag} acknowledged twice`).toBe(false);
      tags.set(line.tag, line.session);
    }
  }
  expect(tags.size).toBe(plan.workers * plan.commits);

  let chained = 0;
  const parents = new Map<string, string | null>();
  const found = new Map<string, string>();
  for (let n = 0; n < plan.sessions; n++) {
    const state = await store.load(`s${n}`);
    chained += state.checkpoints.length;
    for (const checkpoint of state.checkpoints) parents.set(checkpoint.id, checkpoint.parentId);
    expect(state.messages).toHaveLength(state.checkpoints.length);
    for (const message of state.messages) {
      const tag = message.id.slice('user-'.length);
      expect(found.has(tag), `turn ${tag} stored twice`).toBe(false);
      found.set(tag, `s${n}`);
    }
  }
  // No lost update: the stored turns are exactly the acknowledged ones, each where it was sent.
  expect(found).toEqual(tags);
  expect(chained).toBe(tags.size);
  expect(checkpointRows).toBe(chained);
  for (const line of outcomes) {
    if (line.outcome === 'ok') expect(parents.get(line.id)).toBe(line.expected);
    if (line.outcome === 'conflict') expect(line.actual).not.toBe(line.expected);
  }
  return counts;
}
