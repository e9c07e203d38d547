import { ConfigError } from '@mh/core';
import { describe, expect, it } from 'vitest';
import { fakeSecrets } from '../test/fake-secrets.js';
import { Redactor } from './redactor.js';

const redactor = new Redactor();

describe('Redactor', () => {
  it.each(Object.entries(fakeSecrets()))('masks a generated %s', (name, secret) => {
    const context = name === 'bearer' ? `Authorization: Bearer ${secret}` : `here: ${secret}.`;
    const masked = redactor.redact(context);
    expect(masked).not.toContain(secret);
    expect(masked).toMatch(/\[REDACTED:[a-z-]+\]/);
  });

  it('names the kind of secret in the mask and keeps the text around it', () => {
    const { 'aws-access-key': key } = fakeSecrets();
    expect(redactor.redact(`aws key ${key} in use`)).toBe(
      'aws key [REDACTED:aws-access-key] in use',
    );
  });

  it('masks header, URL, query and assignment values but keeps their names', () => {
    expect(redactor.redact('x-api-key: abcdef123456')).toBe('x-api-key: [REDACTED:auth-header]');
    expect(redactor.redact('postgres://app:hunter2secret@db:5432/x')).toBe(
      'postgres://app:[REDACTED:url-credentials]@db:5432/x',
    );
    expect(redactor.redact('GET /v1?q=cats&api_key=abc123xyz')).toBe(
      'GET /v1?q=cats&api_key=[REDACTED:query-secret]',
    );
    expect(redactor.redact('{"password": "correct horse"}')).toBe(
      '{"password": "[REDACTED:secret-assignment]"}',
    );
    expect(
      redactor.redact('aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY'),
    ).toBe('aws_secret_access_key = [REDACTED:aws-secret-key]');
    expect(redactor.redact('DB_PASSWORD=hunter22 PORT=5432')).toBe(
      'DB_PASSWORD=[REDACTED:secret-assignment] PORT=5432',
    );
    expect(redactor.redact('refresh_token: abcd1234efgh')).toBe(
      'refresh_token: [REDACTED:secret-assignment]',
    );
  });

  it('masks a whole PEM private key', () => {
    const pem = '-----BEGIN RSA PRIVATE KEY-----\nMIIEow\nAbC==\n-----END RSA PRIVATE KEY-----';
    expect(redactor.redact(`key:\n${pem}\nend`)).toBe('key:\n[REDACTED:private-key]\nend');
  });

  it('masks exact secret values the user names, longest first', () => {
    const custom = new Redactor({ secrets: ['hunter2-long', 'hunter2-long-and-longer'] });
    expect(custom.redact('a hunter2-long-and-longer b hunter2-long')).toBe(
      'a [REDACTED:secret] b [REDACTED:secret]',
    );
  });

  it('masks user patterns, named or not, with or without the g flag', () => {
    const custom = new Redactor({
      patterns: [/EMP-\d{6}/, { name: 'ticket', pattern: /TKT-[A-Z]{4}/g }],
    });
    expect(custom.redact('EMP-123456 and EMP-654321 on TKT-ABCD')).toBe(
      '[REDACTED:custom] and [REDACTED:custom] on [REDACTED:ticket]',
    );
  });

  it('rejects exact secrets too short to mask safely, naming the field', () => {
    expect(() => new Redactor({ secrets: ['ok-secret', 'ab'] })).toThrow(ConfigError);
    expect(() => new Redactor({ secrets: ['ab'] })).toThrow(/redact\.secrets\[0\]/);
  });

  it('redacts strings inside attribute objects and arrays, leaving other values', () => {
    const { 'openai-key': key } = fakeSecrets();
    expect(redactor.redactAttributes({ a: key, b: 3, c: [key, 'fine'], d: true })).toEqual({
      a: '[REDACTED:openai-key]',
      b: 3,
      c: ['[REDACTED:openai-key]', 'fine'],
      d: true,
    });
  });
});

/** Deterministic bytes, so the benign corpus is the same on every run. */
function bytes(count: number, seed: number): Buffer {
  const out = Buffer.alloc(count);
  let state = seed;
  for (let index = 0; index < count; index++) {
    state = (state * 1103515245 + 12345) >>> 0;
    out[index] = state >>> 24;
  }
  return out;
}

describe('Redactor on benign text', () => {
  const corpus = [
    ...Array.from({ length: 50 }, (_, seed) => bytes(20, seed).toString('hex')),
    ...Array.from({ length: 50 }, (_, seed) => {
      const hex = bytes(16, seed + 100).toString('hex');
      return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
    }),
    ...Array.from(
      { length: 20 },
      (_, seed) => `iVBORw0KGgo${bytes(600, seed + 200).toString('base64')}`,
    ),
    '/usr/local/lib/node_modules/@opentelemetry/sdk-trace-base/build/src/index.js',
    'C:\\Users\\ada\\projects\\mini-harness\\packages\\core\\src\\loop.ts',
    'task-management-service-v2-deployment-config',
    'desk-organizer-for-small-offices-and-home',
    'https://example.com/search?page=2&sort=asc&q=token+bucket',
    'The bearer of this letter is my cousin.',
    'Set the Authorization header to a fresh value.',
    '2026-12-02T16:47:19.123Z @mh/core@0.3.1 sha512-abc',
    'order #A12-99431, invoice INV-2026-0042, ticket JIRA-1234',
  ];

  it('masks nothing in SHAs, UUIDs, base64 images, paths, identifiers and prose', () => {
    const masked = corpus.filter((text) => redactor.redact(text) !== text);
    expect(masked).toEqual([]);
  });
});
