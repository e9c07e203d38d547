/** What a server says about a tool's behaviour. Untrusted: a hint, never a grant. */
export interface McpToolAnnotations {
  /** Human-readable title. */
  readonly title?: string;
  /** The tool does not modify its environment. */
  readonly readOnlyHint?: boolean;
  /** The tool may destroy data (meaningful only when not read-only). */
  readonly destructiveHint?: boolean;
  /** Calling it twice with the same arguments has no extra effect. */
  readonly idempotentHint?: boolean;
  /** The tool reaches outside a closed world (network, web). */
  readonly openWorldHint?: boolean;
}

/** A tool as listed by a server, after the per-tool shape check. */
export interface McpToolInfo {
  /** The server's name for it (unsanitised). */
  readonly name: string;
  /** Its description (untrusted text), '' when absent. */
  readonly description: string;
  /** Its JSON Schema for arguments (checked to be an object schema). */
  readonly inputSchema: Readonly<Record<string, unknown>>;
  /** Its annotations, when the server sent any. */
  readonly annotations?: McpToolAnnotations;
}

/** A content part of a tool result, as sent by the server (untrusted). */
export interface McpContentPart {
  /** `text`, `image`, `audio`, `resource_link`, `resource`, or anything a newer server sends. */
  readonly type: string;
  /** Further fields, by type. */
  readonly [field: string]: unknown;
}

/** The result of `tools/call`. */
export interface McpCallResult {
  /** Content parts, in order. */
  readonly content: readonly McpContentPart[];
  /** Structured result, when the server sent one. */
  readonly structuredContent?: unknown;
  /** True when the tool itself failed (the model should see it as an error). */
  readonly isError: boolean;
}

/** A server's request for a person's input (`elicitation/create`, form mode), untrusted. */
export interface McpElicitation {
  /** What the server asks, for the person. */
  readonly message: string;
  /** The JSON Schema of the answer (an object of primitive fields), when the server sent one. */
  readonly requestedSchema?: Readonly<Record<string, unknown>>;
}

/** The client's answer to an elicitation. */
export type McpElicitResult =
  | { readonly action: 'accept'; readonly content: Readonly<Record<string, unknown>> }
  | { readonly action: 'decline' }
  | { readonly action: 'cancel' };

/** Options of one call. */
export interface McpCallOptions {
  /** Aborts the call; the server is sent `notifications/cancelled`. */
  readonly signal?: AbortSignal;
  /** Time limit in milliseconds; on expiry the server is sent `notifications/cancelled`. */
  readonly timeoutMs?: number;
  /**
   * Answers the server's elicitations while this call runs (with the client's `elicitation`
   * option): only while it is the only such call of the client in flight, since a request does
   * not say which call it belongs to. Otherwise they are declined.
   */
  readonly onElicitation?: (request: McpElicitation) => Promise<McpElicitResult>;
}

/** Options of one request. */
export interface McpRequestOptions {
  /** Aborts the request; the server is sent `notifications/cancelled`. */
  readonly signal?: AbortSignal;
  /** Time limit in milliseconds. Default 60 000. */
  readonly timeoutMs?: number;
  /** What a `ToolTimeoutError` names (the tool); default the method. */
  readonly label?: string;
}

/** The notifications saying a server's tools, resources or prompts changed. */
export type McpListChangedMethod =
  | 'notifications/tools/list_changed'
  | 'notifications/resources/list_changed'
  | 'notifications/prompts/list_changed';

/** A live protocol session with one server: the seam between our client and the MCP library. */
export interface McpConnection {
  /**
   * Sends a request and resolves with its raw result (checked to be an object only). Rejects with
   * `McpProtocolError`, `ToolTimeoutError` or `CancelledError`.
   */
  request(
    method: string,
    params: Record<string, unknown>,
    options?: McpRequestOptions,
  ): Promise<Record<string, unknown>>;
  /** Registers a listener for a list-changed notification. */
  onNotification(method: McpListChangedMethod, listener: () => void): void;
  /** Ends the session (and the server process, for stdio). */
  close(): Promise<void>;
}
