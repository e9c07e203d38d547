import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { type AskedQuestion, ConfigError } from '@mh/core';
import { canonicalJson } from '@mh/core/internal';

/** What an approval token is bound to: one call of one turn, at one place in one session. */
export interface ApprovalSubject {
  /** The session id ('' without a session). */
  readonly sessionId: string;
  /** The branch ('' without a session). */
  readonly branch: string;
  /** The head the interrupted turn builds on (without a session: its assistant message id). */
  readonly head: string | null;
  /** The interrupted call. */
  readonly callId: string;
  /** Its tool. */
  readonly tool: string;
  /** Its arguments, as the token covers them (edited arguments need a new token). */
  readonly input: unknown;
  /**
   * For a call that asked: its question, schema and earlier answers (so a token made for one
   * question cannot answer the next). Absent for an approval.
   */
  readonly question?: AskedQuestion;
}

const VERSION = 'mh.approval.v1';
/** The shortest key taken: 32 bytes, the HMAC-SHA-256 block's security level. */
export const MIN_APPROVAL_KEY_BYTES = 32;

/** The key as bytes; a `ConfigError` naming `field` when it is missing or shorter than 32 bytes. */
export function approvalKeyBytes(key: unknown, field = 'approvalKey'): Buffer {
  const bytes =
    typeof key === 'string'
      ? Buffer.from(key, 'utf8')
      : key instanceof Uint8Array
        ? Buffer.from(key)
        : undefined;
  if (bytes === undefined) throw new ConfigError(field, 'expected a secret string or bytes');
  if (bytes.length < MIN_APPROVAL_KEY_BYTES)
    throw new ConfigError(
      field,
      `expected at least ${MIN_APPROVAL_KEY_BYTES} bytes of secret, got ${bytes.length}`,
    );
  return bytes;
}

/**
 * The HMAC-SHA-256 (base64url) of the subject: session, branch, head, call id, tool and a
 * SHA-256 of the arguments' canonical JSON. Anyone holding the key can make one; nobody else can.
 */
export function signApproval(key: Buffer, subject: ApprovalSubject): string {
  return createHmac('sha256', key).update(message(subject)).digest('base64url');
}

/** Whether `token` is the signature of `subject` under `key` (compared in constant time). */
export function verifyApproval(key: Buffer, subject: ApprovalSubject, token: unknown): boolean {
  if (typeof token !== 'string') return false;
  const expected = Buffer.from(signApproval(key, subject), 'base64url');
  const given = Buffer.from(token, 'base64url');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function message(subject: ApprovalSubject): string {
  const inputHash = createHash('sha256').update(canonicalJson(subject.input)).digest('hex');
  const signed = [
    VERSION,
    subject.sessionId,
    subject.branch,
    subject.head,
    subject.callId,
    subject.tool,
    inputHash,
  ];
  // An approval's message is unchanged (tokens made before questions existed still verify); a
  // question's adds a tag and the hash of the question, its schema and the earlier answers.
  if (subject.question !== undefined) {
    const { question, schema, answers } = subject.question;
    const asked = canonicalJson({ question, schema: schema ?? null, answers });
    signed.push('question', createHash('sha256').update(asked).digest('hex'));
  }
  return JSON.stringify(signed);
}
