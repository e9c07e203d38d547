import { createHash } from 'node:crypto';
import { type CheckpointMeta, ConfigError, type Message } from '@mh/core';
import { canonicalJson } from '@mh/core/internal';

/**
 * A message in its stored form: canonical JSON and the sha-256 of it. Plain data (no copy of the
 * message object), so it crosses to the store's thread once, as its JSON.
 */
export interface EncodedMessage {
  /** The message's id. */
  readonly id: string;
  /** Canonical JSON (sorted keys, no whitespace): the exact bytes stored and hashed. */
  readonly body: string;
  /** sha-256 of `body`, 32 bytes: the content address. */
  readonly hash: Buffer;
}

const sha256 = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/** Encodes a message for storage. Two messages with equal content get the same hash. */
export function encodeMessage(message: Message): EncodedMessage {
  const body = canonicalJson(message);
  return { id: message.id, body, hash: sha256(body) };
}

/**
 * The content-derived id of a checkpoint: sha-256 over the session, the parent id, the appended
 * message hashes in order and the canonical meta. Committing the same turn on the same parent
 * yields the same id, so a retried commit is recognised as such.
 */
export function checkpointId(
  sessionId: string,
  parentId: string | null,
  messages: readonly EncodedMessage[],
  metaJson: string,
): Buffer {
  const hashes = messages.map((message) => message.hash.toString('hex'));
  return sha256(canonicalJson({ hashes, meta: metaJson, parent: parentId, session: sessionId }));
}

/** The canonical JSON of checkpoint metadata; rejects anything but a plain object. */
export function encodeMeta(meta: CheckpointMeta): string {
  if (typeof meta !== 'object' || meta === null || Array.isArray(meta)) {
    throw new ConfigError('meta', 'expected an object (usage, costUsd, model, extra)');
  }
  return canonicalJson(meta);
}

/** A stored 32-byte id as the public lower-case hex string. */
export const toHex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');

/** Parses a public checkpoint id; a malformed one is reported like an unknown one. */
export function fromHex(id: string, field: string): Buffer {
  if (typeof id !== 'string' || !/^[0-9a-f]{64}$/.test(id)) {
    throw new ConfigError(field, `unknown checkpoint ${JSON.stringify(id)}`);
  }
  return Buffer.from(id, 'hex');
}
