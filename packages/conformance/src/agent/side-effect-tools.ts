import { appendFileSync, readFileSync } from 'node:fs';
import type { ParseResult, Tool, ToolRunContext } from '@mh/core';

/** The suite's three tools and what it counts of them. */
export interface SideEffectTools {
  /**
   * read_note (read, idempotent), put_note (write, idempotent), send_once (exec, not idempotent),
   * approved_send: send_once that needs a person's approval (it runs only when approved), and
   * asked_send: send_once that first asks two questions (`ctx.interrupt`), then sends once.
   */
  readonly tools: Tool[];
  /** Resolves when a call with `hang: true` starts waiting (it ends only when aborted). */
  nextHang(): Promise<void>;
  /** Resolves when a call with `slow: true` starts (it answers 25 ms later). */
  nextSlow(): Promise<void>;
  /** The ids of every send_once, approved_send and asked_send call that sent, as the side file holds them (one line each). */
  sent(): string[];
}

const FILLER = 'Details: '.concat('lorem ipsum dolor sit amet '.repeat(30).trim(), '.');

interface NoteInput {
  readonly note: string;
  readonly hang: boolean;
  readonly slow: boolean;
}

const schema = {
  jsonSchema: {
    type: 'object',
    properties: { note: { type: 'string' }, hang: { type: 'boolean' }, slow: { type: 'boolean' } },
    required: ['note'],
  },
  parse(input: unknown): ParseResult<NoteInput> {
    const record = (input ?? {}) as Record<string, unknown>;
    if (typeof record.note !== 'string')
      return { success: false, issues: ['note: expected string'] };
    return {
      success: true,
      value: { note: record.note, hang: record.hang === true, slow: record.slow === true },
    };
  },
};

/**
 * Tools whose effects the suite can count. `send_once` is the side effect that must never run
 * twice: it appends its call id to `sideFile` before it answers, so a run killed or cancelled right
 * after still leaves the proof behind (a file, so a child process's runs count too).
 */
export function sideEffectTools(sideFile: string): SideEffectTools {
  let hanging: (() => void) | undefined;
  let slowing: (() => void) | undefined;
  const run = async (name: string, input: NoteInput, context: ToolRunContext): Promise<string> => {
    if (input.slow) {
      const reached = slowing;
      slowing = undefined;
      reached?.();
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    if (name === 'asked_send') {
      // Both questions come before the side effect: a run without their answers sends nothing.
      await context.interrupt?.({ question: 'Send to whom?', schema: { type: 'string' } });
      await context.interrupt?.('Really send?');
    }
    if (name === 'send_once' || name === 'approved_send' || name === 'asked_send')
      appendFileSync(sideFile, `${context.callId}\n`);
    if (input.hang) {
      const reached = hanging;
      hanging = undefined;
      reached?.();
      await new Promise<never>((_resolve, reject) => {
        const stop = (): void => reject(context.signal.reason ?? new Error('aborted'));
        if (context.signal.aborted) stop();
        context.signal.addEventListener('abort', stop, { once: true });
      });
    }
    // Bulky enough that a few turns fill a 1,000-token window and compaction has work to do.
    return `${name} ${input.note} done. ${FILLER}`;
  };
  const tool = (
    name: string,
    permission: Tool['permission'],
    idempotent: boolean,
    needsApproval = false,
  ): Tool<NoteInput> => ({
    name,
    description: `${name}: a conformance-suite tool`,
    schema,
    permission,
    idempotent,
    ...(needsApproval ? { needsApproval } : {}),
    run: (input, context) => run(name, input, context),
  });
  return {
    tools: [
      tool('read_note', 'read', true),
      tool('put_note', 'write', true),
      tool('send_once', 'exec', false),
      tool('approved_send', 'exec', false, true),
      tool('asked_send', 'exec', false),
    ] as Tool[],
    nextHang: () =>
      new Promise((resolve) => {
        hanging = resolve;
      }),
    nextSlow: () =>
      new Promise((resolve) => {
        slowing = resolve;
      }),
    sent: () => {
      try {
        return readFileSync(sideFile, 'utf8').split('\n').filter(Boolean);
      } catch {
        return [];
      }
    },
  };
}
