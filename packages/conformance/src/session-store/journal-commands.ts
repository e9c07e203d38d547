import type { Message } from '@mh/core';
import { expectConflict, expectRejection, expectSuccess } from './check.js';
import { buildAssistant, resultOf } from './content.js';
import { StoreCommand, type StoreHarness, type Touched, target } from './harness.js';
import { pendingOf, pickOf, type StoreModel } from './store-model.js';

const short = (id: string | null): string => (id === null ? 'null' : id.slice(0, 10));

/** How a journalTurn command picks its base and its assistant message. */
export type JournalVariant = 'right' | 'stale' | 'same';

/**
 * Journals an assistant message: on the head (lands, unless another writer's pending turn sits
 * there: conflict), on a stale head (conflict), or the pending assistant again (no-op).
 */
export class JournalTurnCommand extends StoreCommand {
  readonly kind = 'journalTurn';
  readonly session: number;
  readonly branch: number;
  readonly variant: JournalVariant;
  readonly calls: number;
  readonly text: string;
  readonly pick: number;
  constructor(
    session: number,
    branch: number,
    variant: JournalVariant,
    calls: number,
    text: string,
    pick: number,
  ) {
    super();
    this.session = session;
    this.branch = branch;
    this.variant = variant;
    this.calls = calls;
    this.text = text;
    this.pick = pick;
  }

  protected async apply(model: StoreModel, real: StoreHarness): Promise<Touched[]> {
    const t = target(model, this.session, this.branch);
    if (!t) return [];
    const branch = t.session.branch(t.branch);
    const head = branch.head;
    const stale =
      this.variant === 'stale'
        ? pickOf(
            [null, ...t.session.checkpoints.keys()].filter((id) => id !== head),
            this.pick,
          )
        : undefined;
    const base = stale === undefined ? head : stale;
    const pending = branch.pending;
    const assistant: Message =
      this.variant === 'same' && pending
        ? pending.assistant
        : buildAssistant(model, this.text, this.calls);
    const call = real.store.journalTurn(t.session.id, t.branch, base, assistant);
    const what = `journalTurn(${t.session.id}/${t.branch}, base ${short(base)}, ${assistant.id})`;
    if (base !== head) {
      await expectConflict(
        call,
        { sessionId: t.session.id, expectedHead: base, actualHead: head },
        `${what} while the head is ${short(head)}`,
      );
      this.done = 'stale: conflict';
    } else if (pending && pending.baseHead === head && pending.assistant.id !== assistant.id) {
      await expectRejection(
        call,
        'conflict',
        `${what} over the pending turn ${pending.assistant.id} on the same head`,
      );
      this.done = `competing with ${pending.assistant.id}: conflict`;
    } else if (pending && pending.baseHead === head) {
      await expectSuccess(call, what);
      this.done = 'same assistant: no-op';
    } else {
      await expectSuccess(call, what);
      branch.pending = pendingOf(head, assistant);
      this.done = `pending ${assistant.id}`;
    }
    return [{ session: t.session, branch: t.branch }];
  }

  protected describe(): string {
    return `journalTurn(session ${this.session}, branch ${this.branch}, ${this.variant}, ${this.calls} calls)`;
  }
}

/**
 * Journals a call's start or end: a call of the pending turn lands; a call that is not in it
 * (never journaled, replaced, cleared), or a second start of a call, is a `SessionConflictError`.
 */
export class JournalCallCommand extends StoreCommand {
  readonly kind: string;
  readonly session: number;
  readonly branch: number;
  readonly end: boolean;
  readonly known: boolean;
  readonly pick: number;
  readonly text: string;
  readonly isError: boolean;
  constructor(
    session: number,
    branch: number,
    end: boolean,
    known: boolean,
    pick: number,
    text: string,
    isError: boolean,
  ) {
    super();
    this.session = session;
    this.branch = branch;
    this.end = end;
    this.known = known;
    this.pick = pick;
    this.text = text;
    this.isError = isError;
    this.kind = end ? 'journalEnd' : 'journalStart';
  }

  protected async apply(model: StoreModel, real: StoreHarness): Promise<Touched[]> {
    const t = target(model, this.session, this.branch);
    if (!t) return [];
    const pending = t.session.branch(t.branch).pending;
    const entry = this.known && pending ? pickOf(pending.calls, this.pick) : undefined;
    const callId = entry?.call.id ?? model.fresh('nocall');
    const result = resultOf(callId, this.text, this.isError);
    const call = this.end
      ? real.store.journalEnd(t.session.id, t.branch, callId, result)
      : real.store.journalStart(t.session.id, t.branch, callId);
    const what = `${this.kind}(${t.session.id}/${t.branch}, ${callId})`;
    if (!entry) {
      await expectRejection(call, 'conflict', `${what} of a call not in the pending turn`);
      this.done = 'unknown call: conflict';
      return [{ session: t.session, branch: t.branch }];
    }
    if (!this.end && entry.started) {
      // A start is a claim, made once: two writers never both run a call.
      await expectRejection(call, 'conflict', `${what} of a call already started`);
      this.done = 'already started: conflict';
      return [{ session: t.session, branch: t.branch }];
    }
    await expectSuccess(call, what);
    entry.started = true;
    if (this.end) {
      entry.result = result;
      // A finished call waits on nothing.
      entry.question = undefined;
    }
    this.done = callId;
    return [{ session: t.session, branch: t.branch }];
  }

  protected describe(): string {
    return `${this.kind}(session ${this.session}, branch ${this.branch}, ${this.known ? `call ${this.pick}` : 'unknown call'})`;
  }
}
