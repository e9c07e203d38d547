import { expectRejection, expectSuccess } from './check.js';
import { StoreCommand, type StoreHarness, type Touched, target } from './harness.js';
import { pickOf, type StoreModel } from './store-model.js';

/** Which answers a `journalAnswer` command gives: the next answer, or a count that is off. */
export type AnswerVariant = 'next' | 'stale';

/**
 * Holds a pending call on a question (`journalQuestion`), or claims a held call with answers
 * (`journalAnswer`). A question lands on a call of the pending turn without a result; an answer
 * claims a held call only with one answer more than its question had (`stale` gives one too
 * many: another writer answered first). Everything else is a `SessionConflictError`.
 */
export class JournalQuestionCommand extends StoreCommand {
  readonly kind: string;
  readonly session: number;
  readonly branch: number;
  readonly answer: AnswerVariant | undefined;
  readonly known: boolean;
  readonly pick: number;
  readonly text: string;
  constructor(
    session: number,
    branch: number,
    answer: AnswerVariant | undefined,
    known: boolean,
    pick: number,
    text: string,
  ) {
    super();
    this.session = session;
    this.branch = branch;
    this.answer = answer;
    this.known = known;
    this.pick = pick;
    this.text = text;
    this.kind = answer === undefined ? 'journalQuestion' : 'journalAnswer';
  }

  protected async apply(model: StoreModel, real: StoreHarness): Promise<Touched[]> {
    const t = target(model, this.session, this.branch);
    if (!t) return [];
    const touched = [{ session: t.session, branch: t.branch }];
    const pending = t.session.branch(t.branch).pending;
    const entry = this.known && pending ? pickOf(pending.calls, this.pick) : undefined;
    const callId = entry?.call.id ?? model.fresh('nocall');
    const what = `${this.kind}(${t.session.id}/${t.branch}, ${callId})`;
    if (this.answer === undefined) {
      const text = this.text.trim() === '' ? '?' : this.text;
      const question = { question: text, answers: [...(entry?.answers ?? [])] };
      const call = real.store.journalQuestion(t.session.id, t.branch, callId, question);
      if (!entry || entry.result) {
        await expectRejection(call, 'conflict', `${what} of a call not waiting-capable`);
        this.done = 'unknown or finished call: conflict';
        return touched;
      }
      await expectSuccess(call, what);
      entry.started = true;
      entry.question = question;
      this.done = `held on ${JSON.stringify(question.question)}`;
      return touched;
    }
    const before = entry?.question?.answers ?? [];
    const answers = [...before, this.text, ...(this.answer === 'stale' ? ['again'] : [])];
    const call = real.store.journalAnswer(t.session.id, t.branch, callId, answers);
    if (!entry?.question || entry.result || this.answer === 'stale') {
      await expectRejection(call, 'conflict', `${what} of a call not waiting on that question`);
      this.done = 'not waiting on it: conflict';
      return touched;
    }
    await expectSuccess(call, what);
    entry.started = true;
    entry.question = undefined;
    entry.answers = answers;
    this.done = `claimed with ${answers.length} answer(s)`;
    return touched;
  }

  protected describe(): string {
    return `${this.kind}(session ${this.session}, branch ${this.branch}, ${this.known ? `call ${this.pick}` : 'unknown call'}${this.answer ? `, ${this.answer}` : ''})`;
  }
}
