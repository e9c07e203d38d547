import type { Evidence } from './types.js';

/** Longest evidence excerpt, characters. */
export const MAX_EXCERPT_CHARS = 200;

// Secrets an error text or a tool result may echo: keys of the usual vendors, bearer tokens,
// credentials in URLs, `password=`-style assignments. The mask names the kind, never the value.
const SECRET_PATTERNS: readonly (readonly [RegExp, string])[] = [
  [/sk-ant-[A-Za-z0-9_-]{8,}/g, '[REDACTED:anthropic-key]'],
  [/sk-[A-Za-z0-9_-]{16,}/g, '[REDACTED:openai-key]'],
  [/gh[pousr]_[A-Za-z0-9]{20,}/g, '[REDACTED:github-token]'],
  [/AKIA[0-9A-Z]{16}/g, '[REDACTED:aws-key]'],
  [/eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g, '[REDACTED:jwt]'],
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/gi, '$1 [REDACTED]'],
  [/(\/\/[^/\s:@]+):[^@\s/]+@/g, '$1:[REDACTED]@'],
  [/\b(password|passwd|secret|token|api[_-]?key)(\s*[=:]\s*)[^\s,;&]+/gi, '$1$2[REDACTED]'],
];

/** Masks secrets in `text`. */
export function redact(text: string): string {
  let out = text;
  for (const [pattern, replacement] of SECRET_PATTERNS) out = out.replace(pattern, replacement);
  return out;
}

/**
 * `text` flattened to one line, secrets masked, cut to `MAX_EXCERPT_CHARS`; around `focus` when
 * given and found (so a fact deep in a long tool result is visible).
 */
export function evidenceExcerpt(text: string, focus?: string): string {
  const flat = redact(text.replace(/\s+/g, ' ').trim());
  if (flat.length <= MAX_EXCERPT_CHARS) return flat;
  const at = focus === undefined ? -1 : flat.toLowerCase().indexOf(focus.toLowerCase());
  if (focus === undefined || at < 0) return `${flat.slice(0, MAX_EXCERPT_CHARS - 1)}…`;
  const room = MAX_EXCERPT_CHARS - 2;
  const start = Math.max(
    0,
    Math.min(at - Math.floor((room - focus.length) / 2), flat.length - room),
  );
  const slice = flat.slice(start, start + room);
  return `${start > 0 ? '…' : ''}${slice}${start + room < flat.length ? '…' : ''}`;
}

/** An evidence item; the excerpt is redacted and shortened. */
export function evidence(
  excerpt: string,
  where: { spanId?: string; messageId?: string; attribute?: string } = {},
  focus?: string,
): Evidence {
  return {
    ...(where.spanId === undefined ? {} : { spanId: where.spanId }),
    ...(where.messageId === undefined ? {} : { messageId: where.messageId }),
    ...(where.attribute === undefined ? {} : { attribute: where.attribute }),
    excerpt: evidenceExcerpt(excerpt, focus),
  };
}

/** An error's class and message, for evidence. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}

/** An error's message ('' for a non-error), for signatures. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
