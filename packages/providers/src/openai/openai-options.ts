import { ConfigError } from '@mh/core';
import { assertTimerMs } from '@mh/core/internal';
import type { OpenAI } from 'openai';

/** The two OpenAI APIs an adapter can speak. */
export const OPENAI_APIS = ['chat', 'responses'] as const;
/** `chat` (Chat Completions, also spoken by compatible servers) or `responses` (Responses API). */
export type OpenAIApi = (typeof OPENAI_APIS)[number];

/** Reasoning effort values the `openai` SDK 6.x accepts. */
export const REASONING_EFFORTS = [
  'none',
  'minimal',
  'low',
  'medium',
  'high',
  'xhigh',
  'max',
] as const;
/** How hard a reasoning model thinks before answering. */
export type ReasoningEffort = (typeof REASONING_EFFORTS)[number];

/** The two names Chat Completions servers use for the output-token cap. */
export const MAX_TOKENS_FIELDS = ['max_completion_tokens', 'max_tokens'] as const;
/** The request field that carries `maxOutputTokens` on Chat Completions. */
export type MaxTokensField = (typeof MAX_TOKENS_FIELDS)[number];

/** The key sent when a custom `baseURL` has none: local servers (Ollama, vLLM) ignore it. */
export const PLACEHOLDER_API_KEY = 'not-needed';

/** The SDK's default endpoint. */
export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';

/** Options of `openai()` and of the two provider classes. Invalid values throw a `ConfigError`. */
export interface OpenAIOptions {
  /** Which API to call (default `chat`). Only read by `openai()`. */
  readonly api?: OpenAIApi;
  /**
   * API key; defaults to the `OPENAI_API_KEY` environment variable. With a custom `baseURL` and
   * no key, a placeholder is sent so keyless local servers work. Not used with `client`.
   */
  readonly apiKey?: string;
  /** Endpoint, e.g. `http://localhost:11434/v1` (Ollama); defaults to `OPENAI_BASE_URL` or OpenAI's. */
  readonly baseURL?: string;
  /**
   * An existing `openai` client to use instead of building one. It is not modified: every call
   * passes `maxRetries: 0` (and `timeoutMs`) per request, so `withRetry` stays the only retrier.
   */
  readonly client?: OpenAI;
  /** OpenAI organization id (defaults to the SDK's `OPENAI_ORG_ID`). Not used with `client`. */
  readonly organization?: string;
  /**
   * Request timeout in milliseconds, passed to the SDK: it covers connecting and waiting for the
   * response headers, not the streamed body (`withRetry`'s idle timeout covers that).
   */
  readonly timeoutMs?: number;
  /** Provider name used in spans and errors, e.g. `deepseek` (default `openai`). */
  readonly name?: string;
  /**
   * Reasoning effort for reasoning models: Responses `reasoning.effort` (with `summary: 'auto'`,
   * so reasoning summaries stream as thinking), Chat `reasoning_effort`. Unset: not sent.
   */
  readonly reasoningEffort?: ReasoningEffort;
  /**
   * Chat only: the field for `maxOutputTokens`. Default `max_completion_tokens` for OpenAI's own
   * endpoint (its reasoning models reject `max_tokens`) and `max_tokens` for any other `baseURL`
   * (the name every compatible server accepts: vLLM, Ollama, DeepSeek, Qwen, OpenRouter).
   */
  readonly maxTokensField?: MaxTokensField;
  /**
   * Chat only: send unsigned thinking text back as `reasoning_content` on assistant messages
   * with tool calls, as DeepSeek's thinking mode requires (it answers 400 without). Default true
   * for a custom `baseURL`, false for OpenAI's endpoint, which rejects unknown message fields.
   */
  readonly sendReasoning?: boolean;
  /**
   * Whether the server takes the native typed-output form (Chat `response_format` with a strict
   * `json_schema`, Responses `text.format`). Default true for OpenAI's endpoint and false for a
   * custom `baseURL`, where many servers lack it or ignore it: typed output then asks for a final
   * tool call instead. Set it for a server known to have it (recent vLLM, OpenRouter).
   */
  readonly nativeOutput?: boolean;
}

/** `OpenAIOptions` after validation, with defaults applied. */
export interface ResolvedOpenAIOptions {
  /** Provider name for spans and errors. */
  readonly name: string;
  /** The API key to build a client with; undefined when `client` is given. */
  readonly apiKey: string | undefined;
  /** Base URL to build a client with; undefined means the SDK default. */
  readonly baseURL: string | undefined;
  /** The endpoint requests go to, for error messages. */
  readonly endpoint: string;
  /** The caller's client, when given. */
  readonly client: OpenAI | undefined;
  /** Organization id to build a client with. */
  readonly organization: string | undefined;
  /** SDK request timeout in milliseconds, when set. */
  readonly timeoutMs: number | undefined;
  /** Reasoning effort to request, when set. */
  readonly reasoningEffort: ReasoningEffort | undefined;
  /** Chat field for the output-token cap. */
  readonly maxTokensField: MaxTokensField;
  /** Whether Chat requests echo `reasoning_content`. */
  readonly sendReasoning: boolean;
  /** Whether typed output goes in the native form. */
  readonly nativeOutput: boolean;
}

const KNOWN_OPTIONS: readonly string[] = [
  'api',
  'apiKey',
  'baseURL',
  'client',
  'organization',
  'timeoutMs',
  'name',
  'reasoningEffort',
  'maxTokensField',
  'sendReasoning',
  'nativeOutput',
];

function nonEmptyString(value: unknown, field: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.trim() === '') {
    throw new ConfigError(field, 'expected a non-empty string');
  }
  return value;
}

function oneOf<T extends string>(
  value: unknown,
  field: string,
  allowed: readonly T[],
): T | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
    const list = allowed.map((item) => `'${item}'`).join(', ');
    throw new ConfigError(field, `expected one of ${list}, got ${JSON.stringify(value)}`);
  }
  return value as T;
}

function checkBaseURL(value: unknown, field: string): string | undefined {
  const baseURL = nonEmptyString(value, field);
  if (baseURL === undefined) return undefined;
  let protocol: string;
  try {
    protocol = new URL(baseURL).protocol;
  } catch {
    throw new ConfigError(field, `expected an absolute http(s) URL, got ${baseURL}`);
  }
  if (protocol !== 'http:' && protocol !== 'https:') {
    throw new ConfigError(field, `expected an http or https URL, got ${baseURL}`);
  }
  return baseURL;
}

function checkClient(options: OpenAIOptions, api: OpenAIApi): OpenAI | undefined {
  const client: unknown = options.client;
  if (client === undefined) return undefined;
  const candidate = client as {
    chat?: { completions?: { create?: unknown } };
    responses?: { create?: unknown };
  } | null;
  const create =
    api === 'chat' ? candidate?.chat?.completions?.create : candidate?.responses?.create;
  if (typeof client !== 'object' || client === null || typeof create !== 'function') {
    const method = api === 'chat' ? 'chat.completions.create' : 'responses.create';
    throw new ConfigError(
      'client',
      `expected an OpenAI client from the openai package (${method})`,
    );
  }
  // A key or URL next to a client would be silently ignored: say so instead.
  for (const field of ['apiKey', 'baseURL', 'organization'] as const) {
    if (options[field] !== undefined) {
      throw new ConfigError(field, 'set it on the client you pass, not next to it');
    }
  }
  return options.client;
}

/** True for OpenAI's own host, where `max_completion_tokens` is required and extras are refused. */
export function isOpenAIEndpoint(url: string): boolean {
  try {
    return new URL(url).hostname === 'api.openai.com';
  } catch {
    return false;
  }
}

/**
 * Validates the options of `openai()` (or a provider class) for `api` and applies defaults.
 * Throws a `ConfigError` naming the first bad field; a missing key names `OPENAI_API_KEY`.
 */
export function resolveOpenAIOptions(
  options: OpenAIOptions = {},
  api: OpenAIApi = 'chat',
  env: Readonly<Record<string, string | undefined>> = process.env,
): ResolvedOpenAIOptions {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new ConfigError('options', 'expected an options object');
  }
  for (const key of Object.keys(options)) {
    if (!KNOWN_OPTIONS.includes(key)) {
      throw new ConfigError(key, `unknown option (known: ${KNOWN_OPTIONS.join(', ')})`);
    }
  }
  oneOf(options.api, 'api', OPENAI_APIS);
  const client = checkClient(options, api);
  const baseURL = checkBaseURL(options.baseURL, 'baseURL');
  const envBaseURL = client
    ? undefined
    : checkBaseURL(env.OPENAI_BASE_URL || undefined, 'OPENAI_BASE_URL');
  const endpoint =
    baseURL ??
    (client as { baseURL?: string } | undefined)?.baseURL ??
    envBaseURL ??
    OPENAI_DEFAULT_BASE_URL;
  let apiKey = nonEmptyString(options.apiKey, 'apiKey');
  if (client === undefined && apiKey === undefined) {
    apiKey = env.OPENAI_API_KEY?.trim() ? env.OPENAI_API_KEY : undefined;
    if (apiKey === undefined && isOpenAIEndpoint(endpoint)) {
      throw new ConfigError(
        'apiKey',
        'no OpenAI API key: set the OPENAI_API_KEY environment variable or pass apiKey',
      );
    }
    apiKey ??= PLACEHOLDER_API_KEY;
  }
  const timeoutMs = options.timeoutMs;
  if (
    timeoutMs !== undefined &&
    (typeof timeoutMs !== 'number' || !Number.isFinite(timeoutMs) || timeoutMs <= 0)
  ) {
    throw new ConfigError('timeoutMs', 'expected a positive number of milliseconds');
  }
  // The SDK arms a timer with it: a longer one would fire after 1 ms.
  if (timeoutMs !== undefined) assertTimerMs('timeoutMs', timeoutMs);
  if (options.sendReasoning !== undefined && typeof options.sendReasoning !== 'boolean') {
    throw new ConfigError('sendReasoning', 'expected a boolean');
  }
  if (options.nativeOutput !== undefined && typeof options.nativeOutput !== 'boolean') {
    throw new ConfigError('nativeOutput', 'expected a boolean');
  }
  const official = isOpenAIEndpoint(endpoint);
  return {
    name: nonEmptyString(options.name, 'name') ?? 'openai',
    apiKey,
    baseURL: baseURL ?? envBaseURL,
    endpoint,
    client,
    organization: client ? undefined : nonEmptyString(options.organization, 'organization'),
    timeoutMs,
    reasoningEffort: oneOf(options.reasoningEffort, 'reasoningEffort', REASONING_EFFORTS),
    maxTokensField:
      oneOf(options.maxTokensField, 'maxTokensField', MAX_TOKENS_FIELDS) ??
      (official ? 'max_completion_tokens' : 'max_tokens'),
    sendReasoning: options.sendReasoning ?? !official,
    nativeOutput: options.nativeOutput ?? official,
  };
}
