import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  type Message,
  messageText,
  type SessionState,
  type ToolResultBlock,
  toolUsesOf,
  unfenceUntrusted,
  validateHistory,
} from '@mh/core';
import { openSqliteStore } from '@mh/session-sql';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AgentWorker,
  buildWorkerPackages,
  killPoint,
  readLines,
  startAgentWorker,
} from './agent-worker-process.js';

/**
 * The worker's script: per prompt, the tool turns before the final answer. `lookup` is read-only
 * and idempotent (consecutive lookups run in parallel), `charge` is a write and not idempotent.
 */
const PLAN: readonly (readonly (readonly string[])[])[] = [
  [
    ['lookup', 'lookup', 'charge'],
    ['charge', 'lookup'],
  ],
  [['charge', 'charge']],
  [
    ['lookup', 'charge', 'lookup'],
    ['lookup', 'lookup'],
  ],
  [['charge'], ['lookup', 'charge', 'charge']],
];
const KILLS = 55;
/** A kill comes after 1..MAX_LINES phase lines of a worker, then 0..MAX_EXTRA_MS more. */
const MAX_LINES = 24;
const MAX_EXTRA_MS = 12;
/** Workers loading their modules while another one runs: Node startup is longer than a cycle. */
const WARM_WORKERS = 3;

/** `PRAGMA integrity_check` and `foreign_key_check`, on a read-only connection of its own. */
function checkFile(path: string): { integrity: string; foreignKeyViolations: number } {
  const database = new Database(path, { readonly: true });
  try {
    return {
      integrity: String(database.pragma('integrity_check', { simple: true })),
      foreignKeyViolations: (database.pragma('foreign_key_check') as unknown[]).length,
    };
  } finally {
    database.close();
  }
}

const isPrompt = (message: Message): boolean =>
  message.role === 'user' && message.content.some((block) => block.type === 'text');

/**
 * Checkpoints that are not whole turns: each must be a prompt, a final answer, or an assistant
 * message with tool calls followed by the message answering every one of them.
 */
function partialTurns(state: SessionState): string[] {
  const byId = new Map(state.messages.map((message) => [message.id, message]));
  const ids = state.checkpoints.flatMap((checkpoint) => checkpoint.messageIds);
  const problems: string[] = [];
  if (ids.join() !== state.messages.map((message) => message.id).join())
    problems.push('the checkpoints do not add up to the history');
  for (const checkpoint of state.checkpoints) {
    const [first, second, ...rest] = checkpoint.messageIds.map((id) => byId.get(id));
    const calls = first?.role === 'assistant' ? toolUsesOf(first).map((call) => call.id) : [];
    const answered = (second?.content ?? []).flatMap((block) =>
      block.type === 'tool_result' ? [block.toolUseId] : [],
    );
    const whole =
      rest.length === 0 &&
      (calls.length === 0
        ? second === undefined
        : second?.role === 'user' && answered.sort().join() === calls.sort().join());
    if (!whole) problems.push(`checkpoint ${checkpoint.turn} is not a whole turn`);
  }
  return problems;
}

/** How many times each tool call ran, from the side-effect file. */
function runsPerCall(sideEffects: string, tool: string): Map<string, number> {
  const runs = new Map<string, number>();
  for (const line of readLines(sideEffects)) {
    const [name, callId = ''] = line.split(' ');
    if (name === tool) runs.set(callId, (runs.get(callId) ?? 0) + 1);
  }
  return runs;
}

/** A result's text, read through the fence the Agent puts around it (fencing is on by default). */
const resultText = (result: ToolResultBlock): string =>
  unfenceUntrusted(
    result.content.map((block) => (block.type === 'text' ? block.text : '')).join(''),
  );

/** A deterministic generator of numbers in [0, 1) (mulberry32), so a failing run can be replayed. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

/** One session the workers carry to completion, and what the parent saw of it so far. */
interface Round {
  readonly sessionId: string;
  readonly sideEffects: string;
  readonly phaseLogs: string[];
  messages: readonly Message[];
  head: string | null;
}

let folder: string;
let db: string;
beforeAll(async () => {
  buildWorkerPackages();
  folder = await mkdtemp(join(tmpdir(), 'mh-agent-crash-'));
  db = join(folder, 'agent.db');
}, 120_000);
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

/** Reads the session as a restarted worker would find it, checking the file on the way. */
async function inspect(round: Round): Promise<
  | {
      state: SessionState;
      pendingBase: string | null | undefined;
    }
  | undefined
> {
  if (!existsSync(db)) return undefined;
  expect(checkFile(db)).toEqual({ integrity: 'ok', foreignKeyViolations: 0 });
  const store = await openSqliteStore(db);
  try {
    if (!(await store.getSession(round.sessionId))) return undefined;
    const state = await store.load(round.sessionId);
    const pending = await store.pendingTurn(round.sessionId, state.branch);
    return { state, pendingBase: pending ? pending.baseHead : undefined };
  } finally {
    await store.close();
  }
}

/**
 * Checks what a killed worker left: a sound file, a valid history made of whole turns, nothing
 * committed before lost or changed, every commit the worker saw succeed present (and at most the
 * write in flight beyond it: one checkpoint, or a tool turn and the answer after it), and no
 * charge run twice.
 */
async function checkAfterKill(round: Round, phaseLog: string): Promise<void> {
  const found = await inspect(round);
  const lines = readLines(phaseLog);
  const acknowledged = lines.flatMap((line) => {
    const done = /^store (commit|commitTurns) done (\S+)$/.exec(line);
    return done ? [done[2] as string] : [];
  });
  // The write in flight when the worker died: `commitTurns` lands two checkpoints at once.
  const lastCall = lines.filter((line) => line.startsWith('store ')).at(-1) ?? '';
  const inFlight = lastCall === 'store commitTurns' ? 2 : 1;
  if (!found) {
    expect(acknowledged).toEqual([]);
    return;
  }
  const { state, pendingBase } = found;
  expect(validateHistory(state.messages)).toEqual([]);
  expect(partialTurns(state)).toEqual([]);
  expect(state.messages.slice(0, round.messages.length)).toEqual(round.messages);
  const heads = [null, ...state.checkpoints.map((checkpoint) => checkpoint.id)];
  const lastKnown = heads.indexOf(acknowledged.at(-1) ?? round.head);
  expect(lastKnown).toBeGreaterThanOrEqual(0);
  expect(heads.length - 1 - lastKnown).toBeLessThanOrEqual(inFlight);
  if (pendingBase !== undefined) expect(pendingBase).toBe(state.head);
  expect([...runsPerCall(round.sideEffects, 'charge')].filter(([, runs]) => runs > 1)).toEqual([]);
  round.messages = state.messages;
  round.head = state.head;
}

/**
 * Checks a session a worker completed: the whole script answered in order, a valid history, no
 * turn left pending, each charge run at most once and exactly once when it reported success.
 */
async function checkCompleted(round: Round): Promise<{ interrupted: number }> {
  const found = await inspect(round);
  expect(found?.pendingBase).toBeUndefined();
  const messages = found?.state.messages ?? [];
  expect(validateHistory(messages)).toEqual([]);
  expect(messages.slice(0, round.messages.length)).toEqual(round.messages);
  const promptAt = messages.flatMap((message, index) => (isPrompt(message) ? [index] : []));
  expect(promptAt.map((index) => messageText(messages[index] as Message))).toEqual(
    PLAN.map((_, index) => `prompt ${index}`),
  );
  PLAN.forEach((toolTurns, index) => {
    const assistants = messages
      .slice(promptAt[index], promptAt[index + 1])
      .filter((message) => message.role === 'assistant');
    expect(assistants.map((message) => toolUsesOf(message).map((call) => call.name))).toEqual([
      ...toolTurns,
      [],
    ]);
    expect(messageText(assistants.at(-1) as Message)).toBe(`final answer ${index}`);
  });

  const results = messages.flatMap((message) =>
    message.content.flatMap((block) => (block.type === 'tool_result' ? [block] : [])),
  );
  const calls = new Map(
    messages.flatMap((message) => toolUsesOf(message).map((call) => [call.id, call.name])),
  );
  const charges = runsPerCall(round.sideEffects, 'charge');
  const lookups = runsPerCall(round.sideEffects, 'lookup');
  expect([...charges.keys(), ...lookups.keys()].filter((id) => !calls.has(id))).toEqual([]);
  let interrupted = 0;
  for (const result of results) {
    const id = result.toolUseId;
    const text = resultText(result);
    if (calls.get(id) === 'lookup') {
      expect({ text, isError: result.isError }).toEqual({
        text: `lookup done ${id}`,
        isError: false,
      });
      expect(lookups.get(id)).toBeGreaterThanOrEqual(1);
    } else if (text === `charge done ${id}` && !result.isError) {
      expect({ id, runs: charges.get(id) }).toEqual({ id, runs: 1 });
    } else {
      // The kill hit the charge while it ran: it may or may not have happened, never twice.
      expect({ text, isError: result.isError }).toEqual({
        text: expect.stringContaining('outcome is unknown'),
        isError: true,
      });
      expect(charges.get(id) ?? 0).toBeLessThanOrEqual(1);
      interrupted++;
    }
  }
  return { interrupted };
}

describe('Agent after kill -9', { timeout: 150_000 }, () => {
  it(`recovers at each of ${KILLS} random kill points and resumes to a valid, complete run`, async ({
    annotate,
  }) => {
    const seed = Number(process.env.MH_CRASH_SEED ?? Math.floor(Math.random() * 2 ** 32));
    const random = seededRandom(seed);
    const kills: { session: string; afterLines: number; extraMs: number; point: string }[] = [];
    const rounds: Round[] = [];
    const newRound = (): Round => {
      const sessionId = `run-${rounds.length + 1}`;
      const round: Round = {
        sessionId,
        sideEffects: join(folder, `${sessionId}.side-effects`),
        phaseLogs: [],
        messages: [],
        head: null,
      };
      rounds.push(round);
      return round;
    };
    const warm = Array.from({ length: WARM_WORKERS }, () => startAgentWorker(db, PLAN));
    let round = newRound();
    let interrupted = 0;
    let last: AgentWorker | undefined;
    const started = Date.now();
    try {
      while (kills.length < KILLS) {
        const worker = warm.shift() as AgentWorker;
        warm.push(startAgentWorker(db, PLAN));
        last = worker;
        await worker.ready;
        const phaseLog = join(folder, `worker-${rounds.length}-${round.phaseLogs.length}.log`);
        round.phaseLogs.push(phaseLog);
        const afterLines = 1 + Math.floor(random() * MAX_LINES);
        const extraMs = random() * MAX_EXTRA_MS;
        worker.go({ sessionId: round.sessionId, sideEffects: round.sideEffects, phaseLog });
        await worker.lines(afterLines);
        await sleep(extraMs);
        worker.child.kill('SIGKILL');
        const { code, signal } = await worker.exited;
        if (signal === 'SIGKILL') {
          const point = killPoint(phaseLog);
          kills.push({ session: round.sessionId, afterLines, extraMs, point });
          await checkAfterKill(round, phaseLog);
        } else {
          expect(code, worker.stderr()).toBe(0);
          interrupted += (await checkCompleted(round)).interrupted;
          round = newRound();
        }
      }
      for (const worker of warm.splice(0)) worker.child.kill('SIGKILL');

      const finisher = startAgentWorker(db, PLAN);
      last = finisher;
      await finisher.ready;
      const phaseLog = join(folder, `worker-${rounds.length}-final.log`);
      finisher.go({ sessionId: round.sessionId, sideEffects: round.sideEffects, phaseLog });
      expect(await finisher.exited, finisher.stderr()).toEqual({ code: 0, signal: null });
      expect(readLines(phaseLog).at(-1)).toBe('completed');
      interrupted += (await checkCompleted(round)).interrupted;
    } catch (error) {
      if (error instanceof Error) {
        const trail = kills
          .map(
            (kill, index) =>
              `  ${index + 1}. ${kill.session} after ${kill.afterLines} lines + ${kill.extraMs.toFixed(1)} ms: ${kill.point}`,
          )
          .join('\n');
        error.message = `seed ${seed} (rerun with MH_CRASH_SEED=${seed}), ${kills.length} kill(s):\n${trail}\nlast worker stderr: ${last?.stderr() ?? ''}\n${error.message}`;
      }
      throw error;
    } finally {
      for (const worker of warm) worker.child.kill('SIGKILL');
    }
    const points = new Map<string, number>();
    for (const kill of kills) points.set(kill.point, (points.get(kill.point) ?? 0) + 1);
    await annotate(
      `seed ${seed}; ${kills.length} kills over ${rounds.length} session(s) in ${Date.now() - started} ms; ` +
        `${interrupted} charge(s) answered as interrupted; kill points: ` +
        [...points].map(([point, count]) => `${point} ×${count}`).join(', '),
    );
  }, 300_000);
});
