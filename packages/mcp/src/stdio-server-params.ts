/** How to start an MCP server as a child process speaking JSON-RPC over stdio. */
export interface StdioServerParams {
  /** The executable (looked up on the child's `PATH`). */
  readonly command: string;
  /** Its arguments. */
  readonly args?: readonly string[];
  /**
   * Variables added to the minimal inherited environment (PATH, HOME, …); `undefined` removes
   * an inherited one. Nothing else from our environment reaches the server.
   */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Working directory; defaults to ours, always set explicitly on the child. */
  readonly cwd?: string;
}
