import { ConfigError } from '@mh/core';
import { describe, expect, it } from 'vitest';
import {
  type ApprovalSubject,
  approvalKeyBytes,
  signApproval,
  verifyApproval,
} from './approval-token.js';

const key = approvalKeyBytes('k'.repeat(32));
const subject: ApprovalSubject = {
  sessionId: 's1',
  branch: 'main',
  head: 'c0ffee',
  callId: 'call_1',
  tool: 'write_file',
  input: { path: 'notes.md', text: 'hi' },
};

describe('approval tokens', () => {
  it('verifies its own token, whatever the key order of the input', () => {
    const token = signApproval(key, subject);
    expect(verifyApproval(key, subject, token)).toBe(true);
    const reordered = { ...subject, input: { text: 'hi', path: 'notes.md' } };
    expect(verifyApproval(key, reordered, token)).toBe(true);
  });

  it('refuses a token for anything else: each field of the subject is covered', () => {
    const token = signApproval(key, subject);
    const changes: Partial<ApprovalSubject>[] = [
      { sessionId: 's2' },
      { branch: 'other' },
      { head: 'moved' },
      { head: null },
      { callId: 'call_2' },
      { tool: 'exec' },
      { input: { path: 'notes.md', text: 'hi!' } },
    ];
    for (const change of changes)
      expect(verifyApproval(key, { ...subject, ...change }, token), JSON.stringify(change)).toBe(
        false,
      );
  });

  it("covers a question's text, schema and earlier answers, and tells a question from an approval", () => {
    const asked = { ...subject, question: { question: 'Where?', answers: ['eu'] } };
    const token = signApproval(key, asked);
    expect(verifyApproval(key, asked, token)).toBe(true);
    const changes: ApprovalSubject[] = [
      subject,
      { ...subject, question: { question: 'Where to?', answers: ['eu'] } },
      { ...subject, question: { question: 'Where?', answers: [] } },
      { ...subject, question: { question: 'Where?', answers: ['us'] } },
      { ...subject, question: { question: 'Where?', schema: { type: 'string' }, answers: ['eu'] } },
    ];
    for (const change of changes)
      expect(verifyApproval(key, change, token), JSON.stringify(change)).toBe(false);
    expect(verifyApproval(key, asked, signApproval(key, subject))).toBe(false);
  });

  it('refuses a forged or malformed token, and one made with another key', () => {
    const token = signApproval(key, subject);
    const flipped = `${token.slice(0, -2)}${token.endsWith('AA') ? 'AB' : 'AA'}`;
    for (const forged of [flipped, '', 'x', token.slice(1), 42, undefined, null])
      expect(verifyApproval(key, subject, forged)).toBe(false);
    const other = approvalKeyBytes('o'.repeat(32));
    expect(verifyApproval(other, subject, token)).toBe(false);
  });

  it('takes a key of 32 bytes or more, and names the field otherwise', () => {
    expect(approvalKeyBytes(new Uint8Array(32)).length).toBe(32);
    for (const bad of ['short', new Uint8Array(31), 42, undefined]) {
      const error = (() => {
        try {
          approvalKeyBytes(bad, 'approvalKey');
        } catch (caught) {
          return caught;
        }
      })();
      expect(ConfigError.isInstance(error)).toBe(true);
      expect((error as ConfigError).field).toBe('approvalKey');
    }
  });
});
