import { describe, expect, it } from 'vitest';
import { formatDuration, formatTokens, formatUsd } from './format.js';

describe('formatDuration', () => {
  it('picks a unit by size', () => {
    expect(formatDuration(0.421)).toBe('0.42ms');
    expect(formatDuration(12.4)).toBe('12ms');
    expect(formatDuration(1250)).toBe('1.25s');
    expect(formatDuration(125_000)).toBe('2m05s');
  });
});

describe('formatTokens', () => {
  it('abbreviates thousands and millions', () => {
    expect(formatTokens(950)).toBe('950');
    expect(formatTokens(12_345)).toBe('12.3k');
    expect(formatTokens(4_200_000)).toBe('4.20M');
  });
});

describe('formatUsd', () => {
  it('keeps three significant digits below a dollar', () => {
    expect(formatUsd(0)).toBe('$0');
    expect(formatUsd(0.000123)).toBe('$0.000123');
    expect(formatUsd(0.5)).toBe('$0.5');
    expect(formatUsd(0.00546)).toBe('$0.00546');
    expect(formatUsd(1.234)).toBe('$1.23');
  });
});
