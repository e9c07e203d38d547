import { ConfigError, type Message, messageText, toolResultsOf } from '@mh/core';
import { type AgentModel, expectThat } from './agent-model.js';
import type { AgentWorld } from './agent-world.js';

/** What the model reads for a call answered because a new prompt came instead of a decision. */
export const MOVED_ON: RegExp = /Not run: the user sent a new message instead of deciding/;
/** What the model reads for a denied call (the suite's denials say `no`). */
export const DENIED: RegExp = /Not run: the user denied this call: no\b/;

/** The text of the result `messages` give call `callId`, and whether it is an error. */
export function resultOf(
  messages: readonly Message[],
  callId: string,
): { readonly text: string; readonly isError: boolean } | undefined {
  for (const message of messages) {
    for (const result of toolResultsOf(message)) {
      if (result.toolUseId !== callId) continue;
      const text = result.content
        .map((block) => (block.type === 'text' ? block.text : ''))
        .join('');
      return { text, isError: result.isError === true };
    }
  }
  return undefined;
}

/** Checks that `branch` stores the one result of `callId` the model predicts. */
export async function expectResult(
  world: AgentWorld,
  branch: string,
  callId: string,
  expected: { readonly pattern: RegExp; readonly isError: boolean },
): Promise<void> {
  const { messages } = await world.store.load(world.sessionId, branch);
  const results = messages.filter((message) =>
    toolResultsOf(message).some((result) => result.toolUseId === callId),
  );
  const found = resultOf(messages, callId);
  expectThat(
    results.length === 1 &&
      found !== undefined &&
      found.isError === expected.isError &&
      expected.pattern.test(found.text),
    () =>
      `branch ${branch} answers ${callId} ${results.length} time(s), with ${JSON.stringify(found)}; expected ${expected.isError ? 'an error ' : ''}matching ${expected.pattern}`,
  );
}

/**
 * After a new prompt ran on a branch whose turn waited for a decision: the waiting call was
 * answered as not run (never run), the prompt it belonged to keeps no answer, and a decision
 * naming the call is refused from now on.
 */
export async function expectMovedOn(
  model: AgentModel,
  world: AgentWorld,
  branch: string,
): Promise<void> {
  const waiting = model.waiting.get(branch);
  if (!waiting) return;
  model.waiting.delete(branch);
  model.decided.push(waiting.callId);
  await expectResult(world, branch, waiting.callId, { pattern: MOVED_ON, isError: true });
}

/** Whether `branch`'s pending turn still holds `callId`, not started. */
export async function stillWaits(
  world: AgentWorld,
  branch: string,
  callId: string,
): Promise<boolean> {
  const pending = await world.store.pendingTurn(world.sessionId, branch);
  return pending?.calls.some((entry) => entry.call.id === callId && !entry.started) === true;
}

/** What must not change when a decision is refused: model calls, side effects, the stored branch. */
export interface Untouched {
  readonly calls: number;
  readonly sent: number;
  readonly messages: string;
}

/** Notes what a refused decision must leave as it is. */
export async function untouched(model: AgentModel, world: AgentWorld): Promise<Untouched> {
  return {
    calls: world.model.calls,
    sent: world.tools.sent().length,
    messages: await storedText(model, world),
  };
}

async function storedText(model: AgentModel, world: AgentWorld): Promise<string> {
  if (!model.exists) return '';
  const { messages } = await world.store.load(world.sessionId, model.current);
  return JSON.stringify(messages.map((message) => [message.id, messageText(message)]));
}

/**
 * `attempt` must reject with a `ConfigError` naming `field`, having called no model, run no tool
 * and written nothing to the branch (`what` names the attempt for messages).
 */
export async function expectRefused(
  model: AgentModel,
  world: AgentWorld,
  attempt: () => Promise<unknown>,
  field: string,
  what: string,
): Promise<void> {
  const before = await untouched(model, world);
  let outcome: unknown;
  try {
    outcome = { resolved: await attempt() };
  } catch (error) {
    outcome = error;
  }
  expectThat(
    ConfigError.isInstance(outcome) && outcome.field === field,
    () =>
      `${what}: expected a ConfigError naming ${field}, got ${
        outcome instanceof Error ? `${outcome.name}: ${outcome.message}` : JSON.stringify(outcome)
      }`,
  );
  const after = await untouched(model, world);
  expectThat(
    after.calls === before.calls &&
      after.sent === before.sent &&
      after.messages === before.messages,
    () => `${what} was refused but changed something: ${JSON.stringify({ before, after })}`,
  );
}
