import { ConfigError } from '../errors.js';
import { MESSAGE_ROLES, type Message } from './message.js';

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function requireString(
  block: Record<string, unknown>,
  key: string,
  field: string,
  allowEmpty = true,
): void {
  const value = block[key];
  if (typeof value !== 'string' || (!allowEmpty && value.length === 0)) {
    throw new ConfigError(`${field}.${key}`, `expected a ${allowEmpty ? '' : 'non-empty '}string`);
  }
}

/** An optional field is absent, or a string: a provider sends it back verbatim. */
function optionalString(block: Record<string, unknown>, key: string, field: string): void {
  if (block[key] !== undefined && typeof block[key] !== 'string') {
    throw new ConfigError(`${field}.${key}`, 'expected a string when present');
  }
}

function checkBlock(block: unknown, field: string): void {
  if (!isObject(block)) throw new ConfigError(field, 'expected a content block object');
  switch (block.type) {
    case 'text':
      requireString(block, 'text', field);
      return;
    case 'thinking':
      requireString(block, 'thinking', field);
      optionalString(block, 'signature', field);
      optionalString(block, 'redacted', field);
      return;
    case 'tool_use':
      requireString(block, 'id', field, false);
      requireString(block, 'name', field, false);
      optionalString(block, 'rawInput', field);
      return;
    case 'tool_result':
      requireString(block, 'toolUseId', field, false);
      if (typeof block.isError !== 'boolean')
        throw new ConfigError(`${field}.isError`, 'expected a boolean');
      if (!Array.isArray(block.content))
        throw new ConfigError(`${field}.content`, 'expected an array of blocks');
      block.content.forEach((part, index) => {
        const partField = `${field}.content[${index}]`;
        if (!isObject(part) || (part.type !== 'text' && part.type !== 'image')) {
          throw new ConfigError(partField, "expected a 'text' or 'image' block");
        }
        checkBlock(part, partField);
      });
      return;
    case 'image':
      requireString(block, 'mediaType', field, false);
      if (typeof block.data !== 'string' && typeof block.url !== 'string') {
        throw new ConfigError(field, 'an image needs base64 `data` or a `url`');
      }
      return;
    case 'provider':
      requireString(block, 'provider', field, false);
      return;
    default:
      throw new ConfigError(`${field}.type`, `unknown block type ${JSON.stringify(block.type)}`);
  }
}

/**
 * Checks that `value` is an array of well-formed messages, throwing a `ConfigError` that names the
 * first bad field (e.g. `history[3].content[0].text`). It checks shape only; the pairing
 * invariant is `validateHistory`'s job. Messages before `from` are taken as checked already.
 */
export function assertMessages(
  value: unknown,
  field = 'history',
  from = 0,
): asserts value is Message[] {
  if (!Array.isArray(value)) throw new ConfigError(field, 'expected an array of messages');
  for (let index = from; index < value.length; index++) {
    const message: unknown = value[index];
    const at = `${field}[${index}]`;
    if (!isObject(message)) throw new ConfigError(at, 'expected a message object');
    requireString(message, 'id', at, false);
    if (!(MESSAGE_ROLES as readonly unknown[]).includes(message.role)) {
      throw new ConfigError(`${at}.role`, "expected 'user' or 'assistant'");
    }
    if (!Array.isArray(message.content))
      throw new ConfigError(`${at}.content`, 'expected an array of blocks');
    message.content.forEach((block: unknown, blockIndex) => {
      checkBlock(block, `${at}.content[${blockIndex}]`);
    });
  }
}

/** What is wrong with one message's shape (as `assertMessages` words it), or undefined. */
export function messageProblem(message: unknown, field = 'message'): string | undefined {
  try {
    assertMessages([message], field);
    return undefined;
  } catch (error) {
    if (ConfigError.isInstance(error)) return error.message.replace(`${field}[0]`, field);
    throw error;
  }
}
