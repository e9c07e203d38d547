/**
 * Attribute keys on the loop's spans. `gen_ai.*` and `error.type` follow the OpenTelemetry GenAI
 * semantic conventions (latest names only); `mh.*` are ours. Spans keep the fixed `mh.*` names
 * (DESIGN.md) instead of the conventions' `{operation} {model}` names, so every GenAI span also
 * carries `gen_ai.operation.name`, which GenAI-aware backends classify by.
 */
export const SPAN_ATTRIBUTES: {
  /** `invoke_agent` on `mh.run`, `chat` on `mh.model`, `execute_tool` on `mh.tool`. */
  readonly operationName: 'gen_ai.operation.name';
  /** The provider's short name, e.g. `anthropic`. */
  readonly providerName: 'gen_ai.provider.name';
  /** The model id requested. */
  readonly requestModel: 'gen_ai.request.model';
  /** Cap on generated tokens requested. */
  readonly requestMaxTokens: 'gen_ai.request.max_tokens';
  /** Sampling temperature requested. */
  readonly requestTemperature: 'gen_ai.request.temperature';
  /** The content type asked for: `json` when a typed answer is asked for natively. */
  readonly outputType: 'gen_ai.output.type';
  /** The model that answered. */
  readonly responseModel: 'gen_ai.response.model';
  /** The provider's id of the response, when it reports one. */
  readonly responseId: 'gen_ai.response.id';
  /** Why the model stopped, in the conventions' words (`stop`, `tool_call`, `length`, …). */
  readonly responseFinishReasons: 'gen_ai.response.finish_reasons';
  /** All prompt tokens, cached ones included (the cache counts below are subsets of it). */
  readonly usageInputTokens: 'gen_ai.usage.input_tokens';
  /** Generated tokens, reasoning included. */
  readonly usageOutputTokens: 'gen_ai.usage.output_tokens';
  /** Prompt tokens read from the provider's cache. */
  readonly usageCacheReadTokens: 'gen_ai.usage.cache_read.input_tokens';
  /** Prompt tokens written to the provider's cache. */
  readonly usageCacheWriteTokens: 'gen_ai.usage.cache_creation.input_tokens';
  /** The tool's name as the model called it. */
  readonly toolName: 'gen_ai.tool.name';
  /** The model's id of the tool call. */
  readonly toolCallId: 'gen_ai.tool.call.id';
  /** Always `function` for our tools. */
  readonly toolType: 'gen_ai.tool.type';
  /** Content (opt-in): the call's arguments as JSON. */
  readonly toolCallArguments: 'gen_ai.tool.call.arguments';
  /** Content (opt-in): the call's result text. */
  readonly toolCallResult: 'gen_ai.tool.call.result';
  /** Content (opt-in): the system prompt, as GenAI parts JSON. */
  readonly systemInstructions: 'gen_ai.system_instructions';
  /** Content (opt-in): the request's messages, as GenAI messages JSON. */
  readonly inputMessages: 'gen_ai.input.messages';
  /** Content (opt-in): the response, as GenAI messages JSON. */
  readonly outputMessages: 'gen_ai.output.messages';
  /** The session (and branch) a run continues, when known. */
  readonly conversationId: 'gen_ai.conversation.id';
  /** A low-cardinality failure class: a `ProviderError` kind, a tool status or a class name. */
  readonly errorType: 'error.type';
  /** The run's id. */
  readonly runId: 'mh.run.id';
  /** How the run ended: `completed`, `guard`, `cancelled` or `error`. */
  readonly runStatus: 'mh.run.status';
  /** Turns the run took (on `mh.run`). */
  readonly turns: 'mh.turns';
  /** The turn's number, 1-based (on `mh.turn`). */
  readonly turn: 'mh.turn';
  /** Cost in USD: a model call's own, or a run's own (never a session's running total). */
  readonly costUsd: 'mh.cost_usd';
  /** Prompt tokens read from cache (equals `gen_ai.usage.cache_read.input_tokens`). */
  readonly cacheReadTokens: 'mh.cache.read_tokens';
  /** Prompt tokens written to cache (equals `gen_ai.usage.cache_creation.input_tokens`). */
  readonly cacheWriteTokens: 'mh.cache.write_tokens';
  /** Attempts a model call took: 1 plus one per `stream-reset`. */
  readonly retryAttempts: 'mh.retry.attempts';
  /** Output tokens of attempts a retry discarded (paid for, not in the answer). */
  readonly retryDiscardedOutputTokens: 'mh.retry.discarded_output_tokens';
  /** On an `mh.retry` event: the attempt that starts. */
  readonly retryAttempt: 'mh.retry.attempt';
  /** On an `mh.retry` event: why the previous attempt was discarded. */
  readonly retryReason: 'mh.retry.reason';
  /** The guard that stopped the run, e.g. `max-turns`. */
  readonly guard: 'mh.guard';
  /** The tripped guard's configured limit. */
  readonly guardLimit: 'mh.guard.limit';
  /** The value that reached the limit. */
  readonly guardValue: 'mh.guard.value';
  /** Same class as `error.type`, under our prefix for backends that drop unknown `error.*`. */
  readonly errorKind: 'mh.error.kind';
  /** Milliseconds from the model call's start to its first streamed chunk. */
  readonly timeToFirstTokenMs: 'mh.time_to_first_token_ms';
  /** Our stop reason (`end`, `tool-use`, …), beside the conventions' finish reason. */
  readonly stopReason: 'mh.stop_reason';
  /** How the tool call ended (`ok`, `error`, `timeout`, `denied`, …). */
  readonly toolStatus: 'mh.tool.status';
  /** Attempts the executor made (more than 1 for retried idempotent tools). */
  readonly toolAttempts: 'mh.tool.attempts';
  /** The compaction's stage: `trim`, `summary`, `drop` or `skipped` (the last record's). */
  readonly compactionStage: 'mh.compaction.stage';
  /** Why it ran and what it did (records joined by `; then `). */
  readonly compactionReason: 'mh.compaction.reason';
  /** Messages whose tool output it shortened. */
  readonly compactionTrimmedMessages: 'mh.compaction.trimmed_messages';
  /** Its records' ids (`CompactionRecord.id`). */
  readonly compactionIds: 'mh.compaction.ids';
  /** Estimated context tokens before the compaction. */
  readonly compactionTokensBefore: 'mh.compaction.tokens_before';
  /** Estimated context tokens after it. */
  readonly compactionTokensAfter: 'mh.compaction.tokens_after';
  /** Messages the compaction folded away. */
  readonly compactionFoldedMessages: 'mh.compaction.folded_messages';
  /** On a content event: older messages left out to keep the event small. */
  readonly contentOmittedMessages: 'mh.content.omitted_messages';
} = Object.freeze({
  operationName: 'gen_ai.operation.name',
  providerName: 'gen_ai.provider.name',
  requestModel: 'gen_ai.request.model',
  requestMaxTokens: 'gen_ai.request.max_tokens',
  requestTemperature: 'gen_ai.request.temperature',
  outputType: 'gen_ai.output.type',
  responseModel: 'gen_ai.response.model',
  responseId: 'gen_ai.response.id',
  responseFinishReasons: 'gen_ai.response.finish_reasons',
  usageInputTokens: 'gen_ai.usage.input_tokens',
  usageOutputTokens: 'gen_ai.usage.output_tokens',
  usageCacheReadTokens: 'gen_ai.usage.cache_read.input_tokens',
  usageCacheWriteTokens: 'gen_ai.usage.cache_creation.input_tokens',
  toolName: 'gen_ai.tool.name',
  toolCallId: 'gen_ai.tool.call.id',
  toolType: 'gen_ai.tool.type',
  toolCallArguments: 'gen_ai.tool.call.arguments',
  toolCallResult: 'gen_ai.tool.call.result',
  systemInstructions: 'gen_ai.system_instructions',
  inputMessages: 'gen_ai.input.messages',
  outputMessages: 'gen_ai.output.messages',
  conversationId: 'gen_ai.conversation.id',
  errorType: 'error.type',
  runId: 'mh.run.id',
  runStatus: 'mh.run.status',
  turns: 'mh.turns',
  turn: 'mh.turn',
  costUsd: 'mh.cost_usd',
  cacheReadTokens: 'mh.cache.read_tokens',
  cacheWriteTokens: 'mh.cache.write_tokens',
  retryAttempts: 'mh.retry.attempts',
  retryDiscardedOutputTokens: 'mh.retry.discarded_output_tokens',
  retryAttempt: 'mh.retry.attempt',
  retryReason: 'mh.retry.reason',
  guard: 'mh.guard',
  guardLimit: 'mh.guard.limit',
  guardValue: 'mh.guard.value',
  errorKind: 'mh.error.kind',
  timeToFirstTokenMs: 'mh.time_to_first_token_ms',
  stopReason: 'mh.stop_reason',
  toolStatus: 'mh.tool.status',
  toolAttempts: 'mh.tool.attempts',
  compactionStage: 'mh.compaction.stage',
  compactionReason: 'mh.compaction.reason',
  compactionTrimmedMessages: 'mh.compaction.trimmed_messages',
  compactionIds: 'mh.compaction.ids',
  compactionTokensBefore: 'mh.compaction.tokens_before',
  compactionTokensAfter: 'mh.compaction.tokens_after',
  compactionFoldedMessages: 'mh.compaction.folded_messages',
  contentOmittedMessages: 'mh.content.omitted_messages',
} as const);

/** Names of the events the loop records on its spans. */
export const SPAN_EVENTS: {
  /** On `mh.model`: a retry discarded the previous attempt (`mh.retry.attempt`, `mh.retry.reason`). */
  readonly retry: 'mh.retry';
  /** On `mh.model`, content capture only: the conventions' event with input and output messages. */
  readonly inferenceDetails: 'gen_ai.client.inference.operation.details';
  /** On `mh.tool`, content capture only: `gen_ai.tool.call.arguments` and `.result`. */
  readonly toolCallDetails: 'mh.tool.call.details';
  /** A recorded failure (`exception.type`, `exception.message`), as OpenTelemetry names it. */
  readonly exception: 'exception';
} = Object.freeze({
  retry: 'mh.retry',
  inferenceDetails: 'gen_ai.client.inference.operation.details',
  toolCallDetails: 'mh.tool.call.details',
  exception: 'exception',
} as const);

/** Values of `gen_ai.operation.name` on the loop's spans. */
export const GEN_AI_OPERATIONS: {
  /** `mh.run`: an in-process agent invocation. */
  readonly run: 'invoke_agent';
  /** `mh.model`: one inference call. */
  readonly model: 'chat';
  /** `mh.tool`: one tool call. */
  readonly tool: 'execute_tool';
} = Object.freeze({ run: 'invoke_agent', model: 'chat', tool: 'execute_tool' } as const);
