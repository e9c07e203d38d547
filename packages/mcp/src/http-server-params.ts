/** How to reach an MCP server over streamable HTTP. */
export interface HttpServerParams {
  /** The server's MCP endpoint, `http://` or `https://`. */
  readonly url: string;
  /** Headers sent with every request (for example `Authorization`). */
  readonly headers?: Readonly<Record<string, string>>;
}
