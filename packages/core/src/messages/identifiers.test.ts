import { describe, expect, it } from 'vitest';
import { extractIdentifiers } from './identifiers.js';

describe('extractIdentifiers', () => {
  it('finds order numbers, paths, file names, hashes, uuids, emails, urls and long numbers', () => {
    const text =
      'Order ORD-10442 shipped from src/billing/invoice.ts (see notes.md); commit 3f9a2c1e by ' +
      'ann@example.com, ticket 550e8400-e29b-41d4-a716-446655440000, total 12,345.67 at ' +
      'https://example.com/a/b?x=1 and INV_2024_07.';
    const ids = extractIdentifiers(text);
    for (const expected of [
      'ORD-10442',
      'src/billing/invoice.ts',
      'notes.md',
      '3f9a2c1e',
      'ann@example.com',
      '550e8400-e29b-41d4-a716-446655440000',
      '12,345.67',
      'https://example.com/a/b?x=1',
      'INV_2024_07',
    ]) {
      expect(ids).toContain(expected);
    }
  });

  it('ignores ordinary words, short numbers and sentence ends', () => {
    expect(extractIdentifiers('The cat sat on 3 mats in 2 rooms. Then it left.')).toEqual([]);
  });

  it('does not repeat a name already inside a kept path, and keeps first-appearance order', () => {
    expect(extractIdentifiers('read /data/orders.csv then orders.csv then ORD-7781')).toEqual([
      '/data/orders.csv',
      'ORD-7781',
    ]);
  });

  it('stays fast on long unbroken text (no backtracking)', () => {
    const blob = `${'y'.repeat(200_000)} ${'ab.'.repeat(50_000)} ORD-1234`;
    expect(extractIdentifiers(blob)).toEqual(['ORD-1234']);
  });

  it('finds identifiers inside key=value and key:value words', () => {
    expect(extractIdentifiers('id=ORD-991 file:data/x.csv status=ok')).toEqual([
      'ORD-991',
      'data/x.csv',
    ]);
  });

  it('keeps an identifier that a longer one seen first merely starts with', () => {
    const ids = extractIdentifiers(
      'ORD-12345 then ORD-1234; PR-12 then PR-1; user_42 then user_4; INV-2024-0711 then INV-2024-07',
    );
    for (const expected of ['ORD-1234', 'PR-1', 'user_4', 'INV-2024-07']) {
      expect(ids).toContain(expected);
    }
  });

  it('finds issue numbers, dates, timestamps, dotted numbers and amounts with a currency sign', () => {
    const ids = extractIdentifiers(
      'Fixed in #1234 on 2024-07-01 (deployed 2024-07-01T10:00:00Z to 10.0.0.1, release 1.2.3); refund $1,299.00.',
    );
    for (const expected of [
      '#1234',
      '2024-07-01',
      '2024-07-01T10:00:00Z',
      '10.0.0.1',
      '1.2.3',
      '1,299.00',
    ]) {
      expect(ids).toContain(expected);
    }
    expect(ids).not.toContain('299.00');
  });

  it('honours the limit', () => {
    expect(extractIdentifiers('A-1001 A-1002 A-1003', 2)).toEqual(['A-1001', 'A-1002']);
  });
});
