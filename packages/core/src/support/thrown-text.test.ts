import { describe, expect, it } from 'vitest';
import { isErrorObject, thrownKind, thrownMessage, thrownText } from './thrown-text.js';

const hostile: readonly unknown[] = [
  Object.create(null),
  {
    toString(): string {
      throw new Error('no');
    },
  },
  Object.defineProperty(new Error('x'), 'message', {
    get(): string {
      throw new Error('no');
    },
  }),
  new Proxy(
    {},
    {
      get(): never {
        throw new Error('trap');
      },
      getPrototypeOf(): never {
        throw new Error('trap');
      },
    },
  ),
  Symbol('s'),
  10n,
  undefined,
  null,
  () => {},
];

describe('thrownText', () => {
  it('is the message of an error or a thrown string', () => {
    expect(thrownText('Tool t', new Error('disk full'))).toBe('disk full');
    expect(thrownText('Tool t', 'disk full')).toBe('disk full');
    expect(thrownText('Tool t', { message: 'from a plain object' })).toBe('from a plain object');
  });

  it('never throws and always says what failed, whatever was thrown', () => {
    for (const value of hostile) {
      expect(() => thrownText('Tool t', value)).not.toThrow();
      expect(thrownText('Tool t', value)).toMatch(/^Tool t failed without a readable message/);
    }
  });

  it('names the kind of value without calling its toString', () => {
    expect(thrownKind(undefined)).toBe('undefined');
    expect(thrownKind(42)).toBe('42');
    expect(thrownKind(Symbol('s'))).toBe('Symbol(s)');
    expect(thrownKind(new Error(''))).toBe('an Error without a message');
    expect(thrownKind(Object.create(null))).toBe('an object');
    expect(thrownMessage(Object.assign(new Error('x'), { message: 7 }))).toBeUndefined();
  });
});

describe('isErrorObject', () => {
  it('is instanceof Error, and false rather than a throw for a trapping Proxy', () => {
    expect(isErrorObject(new TypeError('x'))).toBe(true);
    expect(isErrorObject({ message: 'x' })).toBe(false);
    expect(isErrorObject(hostile[3])).toBe(false);
  });
});
