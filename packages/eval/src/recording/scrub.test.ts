import { describe, expect, it } from 'vitest';
import { createScrubber } from './scrub.js';

describe('createScrubber', () => {
  it('masks API-key shapes and bearer tokens and keeps the line valid JSON', () => {
    const scrub = createScrubber([], {}).json;
    const line = JSON.stringify({
      message: `401 invalid x-api-key sk-ant-api03-${'a'.repeat(40)} / sk-proj-${'b'.repeat(30)}`,
      header: `Authorization: Bearer ${'c'.repeat(24)}`,
      aws: 'AKIAABCDEFGHIJKLMNOP',
    });
    const scrubbed = scrub(line);
    expect(scrubbed).not.toMatch(/aaaa|bbbb|cccc|AKIAABCD/);
    expect(JSON.parse(scrubbed)).toEqual({
      message: '401 invalid x-api-key [REDACTED:anthropic-key] / [REDACTED:openai-key]',
      header: 'Authorization: Bearer [REDACTED:bearer]',
      aws: '[REDACTED:aws-access-key]',
    });
  });

  it('masks the values of credential variables and given literals, JSON-escaped', () => {
    const { json: scrub } = createScrubber(['pa"ss\\word-123'], {
      MY_SERVICE_API_KEY: 'zz-secret-value-42',
      GITHUB_TOKEN: 'tok-12345678',
      HOME: '/home/someone',
      SHORT_TOKEN: 'abc',
    });
    const line = JSON.stringify({
      text: 'keys: zz-secret-value-42 tok-12345678 pa"ss\\word-123 /home/someone abc',
    });
    expect(JSON.parse(scrub(line))).toEqual({
      text: 'keys: [REDACTED:secret] [REDACTED:secret] [REDACTED:secret] /home/someone abc',
    });
  });

  it('leaves a line without secrets untouched', () => {
    const scrub = createScrubber([], {}).json;
    const line = JSON.stringify({ text: 'sk-short and a task-list' });
    expect(scrub(line)).toBe(line);
  });
});
