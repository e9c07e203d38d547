import type { Tool } from '@mh/core';
import * as z from 'zod';
import { defineTool } from '../src/define-tool.js';

/** Values a tool written in plain JavaScript can throw, and that are hard to turn into text. */
export const HOSTILE_THROWS: readonly (readonly [string, () => unknown])[] = [
  ['Object.create(null)', () => Object.create(null)],
  [
    'an object whose toString throws',
    () => ({
      toString(): string {
        throw new Error('no text for you');
      },
    }),
  ],
  [
    'an Error whose message getter throws',
    () => {
      const error = new Error('hidden');
      Object.defineProperty(error, 'message', {
        get(): string {
          throw new Error('no message for you');
        },
      });
      return error;
    },
  ],
  [
    'an Error whose message is not a string',
    () => Object.assign(new Error('x'), { message: { not: 'text' } }),
  ],
  [
    'a Proxy whose every trap throws',
    () =>
      new Proxy(
        {},
        {
          get(): never {
            throw new Error('trap');
          },
          getPrototypeOf(): never {
            throw new Error('trap');
          },
          has(): never {
            throw new Error('trap');
          },
        },
      ),
  ],
  ['a symbol', () => Symbol('odd')],
  ['undefined', () => undefined],
];

/** A tool that throws what `make` returns (synchronously or asynchronously). */
export function throwingTool(make: () => unknown, options: { idempotent?: boolean } = {}): Tool {
  return defineTool({
    name: 'boom',
    description: 'Fails.',
    input: z.object({}),
    permission: 'read',
    ...options,
    run: () => {
      throw make();
    },
  });
}
