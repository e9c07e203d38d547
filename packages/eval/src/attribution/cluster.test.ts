import { describe, expect, it } from 'vitest';
import { clusterFailures, normaliseErrorText, signatureOf } from './cluster.js';
import type { Attribution } from './types.js';

function verdict(layer: Attribution['layer'], signature: string): Attribution {
  return {
    layer,
    rule: `${layer}/x`,
    confidence: 'high',
    summary: signature,
    evidence: [],
    signature,
  };
}

describe('normaliseErrorText', () => {
  it('strips what varies between occurrences of one cause', () => {
    const first = normaliseErrorText(
      "Error: ENOENT: no such file or directory, open '/tmp/a1/orders-17.csv'",
    );
    const second = normaliseErrorText(
      'Error: ENOENT: no such file or directory, open "/var/data/x.csv"',
    );
    expect(first).toBe(second);
    expect(normaliseErrorText('call toolu_01ABCdefGHI failed after 3 attempts in 120.5 ms')).toBe(
      'call <id> failed after <n> attempts in <n> ms',
    );
    expect(normaliseErrorText('GET https://api.example.com/v1/x?id=9 returned 503')).toBe(
      'get <url> returned <n>',
    );
    expect(normaliseErrorText('request 9f8e7d6c5b4a3f2e failed')).toBe('request <id> failed');
    expect(normaliseErrorText('fence untrusted-qzkfhwpexmrtabcdlsoj closed')).toBe(
      'fence untrusted-<id> closed',
    );
  });

  it('keeps the words that tell causes apart', () => {
    expect(signatureOf('tool/runtime-error', 'read_file', 'permission denied')).not.toBe(
      signatureOf('tool/runtime-error', 'read_file', 'file not found'),
    );
  });
});

describe('clusterFailures', () => {
  it('groups by layer and signature, largest first, cases listed once', () => {
    const clusters = clusterFailures([
      { case: 'a', repeat: 0, attribution: verdict('model', 'm') },
      { case: 'b', repeat: 0, attribution: verdict('tool', 't') },
      { case: 'b', repeat: 1, attribution: verdict('tool', 't') },
      { case: 'c', repeat: 0, attribution: verdict('tool', 't') },
      { case: 'd', repeat: 0, attribution: verdict('infra', 'i') },
    ]);
    expect(clusters.map((cluster) => [cluster.layer, cluster.count, cluster.cases])).toEqual([
      ['tool', 3, ['b', 'c']],
      ['infra', 1, ['d']],
      ['model', 1, ['a']],
    ]);
  });

  it('returns nothing for no failures', () => {
    expect(clusterFailures([])).toEqual([]);
  });

  it('rejects malformed members and text with the field', () => {
    expect(() => clusterFailures('x' as never)).toThrow(/members/);
    expect(() => clusterFailures([{ case: 'a' }] as never)).toThrow(/members\[0\]/);
    expect(() => normaliseErrorText(3 as never)).toThrow(/text/);
  });
});
