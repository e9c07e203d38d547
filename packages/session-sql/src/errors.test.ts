import { ConfigError, SessionStoreUnavailableError } from '@mh/core';
import { describe, expect, it } from 'vitest';
import { SessionFileError, SessionSchemaError, SessionStoreBusyError } from './errors.js';

/** An error as another copy of this package would make it: the same brands, another class. */
const fromAnotherCopy = (...names: string[]): Error =>
  Object.defineProperties(
    new Error('from another copy'),
    Object.fromEntries(names.map((name) => [Symbol.for(`mh.error.${name}`), { value: true }])),
  );

/** Each error, its parent in core, and one instance. */
const errors: [string, typeof SessionStoreUnavailableError | typeof ConfigError, Error][] = [
  ['SessionFileError', ConfigError, new SessionFileError('a.db', 'corrupt', 'is corrupt')],
  ['SessionSchemaError', ConfigError, new SessionSchemaError('mh', 'newer-schema', 'is newer')],
  ['SessionStoreBusyError', SessionStoreUnavailableError, new SessionStoreBusyError(50)],
];
const types = { SessionFileError, SessionSchemaError, SessionStoreBusyError };

describe('the store errors', () => {
  it.each(errors)(
    'recognise a %s from this copy and from another one, by brand name',
    (name, parent, error) => {
      const type = types[name as keyof typeof types];
      expect(type.brandName).toBe(name);
      expect(type.isInstance(error)).toBe(true);
      expect(parent.isInstance(error)).toBe(true);
      expect(type.isInstance(fromAnotherCopy(name))).toBe(true);
      expect(type.isInstance(fromAnotherCopy(parent.brandName))).toBe(false);
    },
  );
});
