import { describe, expect, it } from 'vitest';
import {
  CancelledError,
  ConfigError,
  GUARDS,
  GuardTrippedError,
  HarnessError,
  McpProtocolError,
  PermissionDeniedError,
  PROVIDER_ERROR_KINDS,
  ProviderError,
  type ProviderErrorKind,
  ReplayDriftError,
  ToolInputError,
  ToolTimeoutError,
} from './errors.js';
import { SessionConflictError } from './session-errors.js';

/** An error as a second copy of `@mh/core` would create it: same brands, other classes. */
function fromSecondCopy(name: string): Error {
  const error = new Error('from another copy');
  Object.defineProperty(error, Symbol.for('mh.error.HarnessError'), { value: true });
  Object.defineProperty(error, Symbol.for(`mh.error.${name}`), { value: true });
  return error;
}

const examples: [string, HarnessError][] = [
  ['HarnessError', new HarnessError('x')],
  ['ConfigError', new ConfigError('limits.maxTurns', 'expected a positive integer')],
  ['ProviderError', new ProviderError('x', { kind: 'server', status: 500 })],
  ['ToolInputError', new ToolInputError('read', ['path: expected string'])],
  ['ToolTimeoutError', new ToolTimeoutError('read', 1000)],
  ['PermissionDeniedError', new PermissionDeniedError('exec', 'exec')],
  ['GuardTrippedError', new GuardTrippedError('max-turns', 5, 5)],
  ['CancelledError', new CancelledError()],
  ['SessionConflictError', new SessionConflictError('s1', 'a', 'b')],
  ['McpProtocolError', new McpProtocolError('fs', 'bad version')],
  [
    'ReplayDriftError',
    new ReplayDriftError('drift', { path: 'system', recorded: 'a', actual: 'b', requestIndex: 0 }),
  ],
];

describe('HarnessError', () => {
  it.each(examples)('names a %s after its class', (name, error) => {
    expect(error.name).toBe(name);
  });

  it('names an error after a user subclass', () => {
    class MyToolError extends HarnessError {}
    expect(new MyToolError('x').name).toBe('MyToolError');
  });

  it.each(examples)('recognises a %s as a HarnessError', (_name, error) => {
    expect(HarnessError.isInstance(error)).toBe(true);
  });

  it('keeps the native cause', () => {
    const cause = new Error('socket hang up');
    expect(new HarnessError('failed', { cause }).cause).toBe(cause);
  });

  it('rejects values that are not harness errors', () => {
    expect(
      [new Error('x'), null, undefined, 'ProviderError', {}].map(HarnessError.isInstance),
    ).toEqual([false, false, false, false, false]);
  });
});

describe('isInstance', () => {
  it.each(examples)('recognises a %s made by a second copy of core', (name, error) => {
    const foreign = fromSecondCopy(name);
    const ctor = error.constructor as typeof HarnessError;
    expect(foreign instanceof ctor).toBe(false);
    expect(ctor.isInstance(foreign)).toBe(true);
  });

  it('recognises a plain object carrying the brand', () => {
    expect(ProviderError.isInstance({ [Symbol.for('mh.error.ProviderError')]: true })).toBe(true);
  });

  it('does not confuse sibling classes', () => {
    expect(ConfigError.isInstance(new ProviderError('x', { kind: 'auth', status: 401 }))).toBe(
      false,
    );
  });

  it('does not accept a brand whose value is not true', () => {
    expect(ProviderError.isInstance({ [Symbol.for('mh.error.ProviderError')]: 'yes' })).toBe(false);
  });
});

describe('ProviderError', () => {
  it.each([
    ['rate-limit', 429],
    ['server', 500],
    ['server', 503],
    ['overloaded', 529],
    ['timeout', 408],
    ['server', 409],
  ] as [ProviderErrorKind, number][])(
    'is retryable by default for %s with status %i',
    (kind, status) => {
      expect(new ProviderError('x', { kind, status }).retryable).toBe(true);
    },
  );

  it.each([
    ['bad-request', 400],
    ['auth', 401],
    ['auth', 403],
    ['server', 404],
    ['context-overflow', 400],
  ] as [ProviderErrorKind, number][])(
    'is not retryable by default for %s with status %i',
    (kind, status) => {
      expect(new ProviderError('x', { kind, status }).retryable).toBe(false);
    },
  );

  it.each([undefined, 429, 500])(
    'is never retryable by default for kind quota (status %s)',
    (status) => {
      expect(new ProviderError('x', { kind: 'quota', status }).retryable).toBe(false);
    },
  );

  it.each(['network', 'timeout', 'overloaded', 'rate-limit'] as ProviderErrorKind[])(
    'is retryable by default for %s without a status',
    (kind) => {
      expect(new ProviderError('x', { kind }).retryable).toBe(true);
    },
  );

  it('keeps an explicit retryable over the default', () => {
    expect(
      new ProviderError('x', { kind: 'server', status: 500, retryable: false }).retryable,
    ).toBe(false);
  });

  it('keeps its structured fields', () => {
    const cause = new Error('raw');
    const error = new ProviderError('slow down', {
      kind: 'rate-limit',
      status: 429,
      retryAfterMs: 2000,
      provider: 'anthropic',
      cause,
    });
    expect(error).toMatchObject({
      kind: 'rate-limit',
      status: 429,
      retryAfterMs: 2000,
      provider: 'anthropic',
      cause,
      message: 'slow down',
    });
  });

  it('lists nine kinds', () => {
    expect(PROVIDER_ERROR_KINDS).toHaveLength(9);
  });
});

describe('ConfigError', () => {
  it('names the offending field in a field and in the message', () => {
    const error = new ConfigError('limits.maxTurns', 'expected a positive integer');
    expect(error.field).toBe('limits.maxTurns');
    expect(error.message).toBe('limits.maxTurns: expected a positive integer');
  });
});

describe('GuardTrippedError', () => {
  it('keeps guard, limit and value', () => {
    expect(new GuardTrippedError('max-tokens', 1000, 1040)).toMatchObject({
      guard: 'max-tokens',
      limit: 1000,
      value: 1040,
    });
  });

  it('states the value and the limit in the unit of each guard', () => {
    const messages = [
      new GuardTrippedError('timeout', 1, 83),
      new GuardTrippedError('timeout', 30_000, 30_012),
      new GuardTrippedError('max-turns', 1, 1),
      new GuardTrippedError('max-tokens', 1000, 1040),
      new GuardTrippedError('max-cost', 0.3, 0.30000000000000004),
      new GuardTrippedError('max-repeated-calls', 3, 4, 'read_file with the same arguments'),
    ].map((error) => error.message);
    expect(messages).toEqual([
      'Guard timeout tripped: 83 ms reached the limit 1 ms',
      'Guard timeout tripped: 30 s reached the limit 30 s',
      'Guard max-turns tripped: 1 turn reached the limit 1 turn',
      'Guard max-tokens tripped: 1040 tokens reached the limit 1000 tokens',
      'Guard max-cost tripped: $0.3 reached the limit $0.3',
      'Guard max-repeated-calls tripped: 4 calls reached the limit 3 calls (read_file with the same arguments)',
    ]);
  });

  it('covers the five loop guards', () => {
    expect([...GUARDS].sort()).toEqual(
      ['max-cost', 'max-repeated-calls', 'max-tokens', 'max-turns', 'timeout'].sort(),
    );
  });
});

describe('ToolInputError', () => {
  it('lists every issue in its message', () => {
    const error = new ToolInputError('read', ['path: expected string', 'limit: expected number']);
    expect(error.message).toBe('Invalid arguments: path: expected string; limit: expected number');
  });
});

describe('ReplayDriftError', () => {
  it('keeps the drifted path, both values and the request ordinal', () => {
    const error = new ReplayDriftError('request 2: maxOutputTokens differs', {
      path: 'maxOutputTokens',
      recorded: 1024,
      actual: 512,
      requestIndex: 2,
    });
    expect(error).toMatchObject({
      path: 'maxOutputTokens',
      recorded: 1024,
      actual: 512,
      requestIndex: 2,
    });
    expect(ProviderError.isInstance(error)).toBe(false);
  });
});
