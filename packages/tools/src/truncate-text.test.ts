import { describe, expect, it } from 'vitest';
import { truncateContent, truncateMiddle } from './truncate-text.js';

describe('truncateMiddle', () => {
  it('leaves text within the limit unchanged', () => {
    expect(truncateMiddle('short', 10)).toBe('short');
  });

  it('keeps head and tail and fits the limit', () => {
    const text = `${'a'.repeat(500)}${'b'.repeat(500)}`;
    const result = truncateMiddle(text, 120);
    expect(result.length).toBeLessThanOrEqual(120);
    expect(result.startsWith('aaaa')).toBe(true);
    expect(result.endsWith('bbbb')).toBe(true);
  });

  it('states exactly how many characters it removed', () => {
    const text = 'x'.repeat(12_345);
    const result = truncateMiddle(text, 100);
    const omitted = Number(/\[truncated (\d+) characters\]/.exec(result)?.[1]);
    const marker = `\n…[truncated ${omitted} characters]…\n`;
    expect(result.length - marker.length + omitted).toBe(text.length);
  });

  it('never splits a surrogate pair', () => {
    const text = '😀'.repeat(200);
    const result = truncateMiddle(text, 101);
    expect(result).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/);
    expect(result).not.toMatch(/(?<![\ud800-\udbff])[\udc00-\udfff]/);
  });
});

describe('truncateContent', () => {
  it('joins adjacent text blocks and caps their total', () => {
    const result = truncateContent(
      [
        { type: 'text', text: 'a'.repeat(300) },
        { type: 'text', text: 'b'.repeat(300) },
      ],
      200,
    );
    expect(result).toHaveLength(1);
    const [block] = result;
    expect(block?.type === 'text' && block.text.length).toBeLessThanOrEqual(200);
  });

  it('passes images through untouched', () => {
    const image = { type: 'image', mediaType: 'image/png', data: 'AAAA' } as const;
    const result = truncateContent([{ type: 'text', text: 'x'.repeat(1_000) }, image], 100);
    expect(result[1]).toBe(image);
  });
});
