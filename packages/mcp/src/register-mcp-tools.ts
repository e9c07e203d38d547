import { ConfigError, PERMISSIONS, type Permission, type Tool } from '@mh/core';
import { assertOptions } from '@mh/core/internal';
import type { McpToolInfo } from './mcp-connection.js';
import { mcpPermission, type PermissionFor } from './mcp-permission.js';
import { type McpToolCaller, type McpToolHandle, mcpTool, toolFingerprint } from './mcp-tool.js';
import { assignToolNames } from './tool-name.js';

export { toolOutput } from './mcp-tool.js';

/** Anything tools can be registered into, such as `@mh/tools`' `ToolRegistry`. */
export interface ToolSink {
  /** Adds one tool; may throw when the name is taken. */
  register(tool: Tool): unknown;
  /**
   * Removes a tool (used when a server stops offering one). Without it a removed tool stays
   * registered but answers with an error instead of calling the server.
   */
  unregister?(name: string): unknown;
}

/** The part of `McpClient` that registration needs. */
export interface McpToolSource extends McpToolCaller {
  /** Lists the server's tools (every page). */
  listTools(): Promise<readonly McpToolInfo[]>;
  /** Subscribes to `notifications/tools/list_changed`; without it there is no refresh. */
  onToolsChanged?(listener: () => void): void;
}

/** Which server tools become agent tools, and with what permission. */
export interface RegisterMcpToolsOptions {
  /**
   * Only these tools are registered (by server name `read_file` or registered name
   * `fs__read_file`); all when absent. Unlisted tools are never shown to the model.
   */
  readonly allow?: readonly string[];
  /** Pins permissions; called with the registered name and the server's annotations. */
  readonly permissionFor?: PermissionFor;
  /** Per-call limit in milliseconds, also the `Tool.timeoutMs`. */
  readonly timeoutMs?: number;
  /** Names already used by other tools, so ours get a hash suffix instead of colliding. */
  readonly takenNames?: readonly string[];
  /** Receives warnings (dropped tools, tool-list changes). Default: `process.emitWarning`. */
  readonly onWarning?: (message: string) => void;
  /** Follow `notifications/tools/list_changed` (re-list and re-register). Default true. */
  readonly refreshOnChange?: boolean;
  /** Called after each refresh (not the first registration) with what changed. */
  readonly onRefresh?: (change: McpToolsChange) => void;
}

/** One registered tool. */
export interface RegisteredMcpTool {
  /** Its registered name, e.g. `fs__read_file`. */
  readonly name: string;
  /** The server's name for it. */
  readonly serverToolName: string;
  /** The permission it got. */
  readonly permission: Permission;
}

/** A tool that was not registered, and why. */
export interface DroppedMcpTool {
  /** Its registered name. */
  readonly name: string;
  /** Why (schema does not compile, name taken…). */
  readonly reason: string;
}

/** What one refresh changed, by registered name. */
export interface McpToolsChange {
  /** Tools registered for the first time. */
  readonly added: readonly string[];
  /** Tools the server no longer offers (unregistered, or retired when the sink cannot). */
  readonly removed: readonly string[];
  /** Tools re-registered because their description, schema, annotations or permission changed. */
  readonly changed: readonly string[];
  /** Tools left out, with the reason. */
  readonly dropped: readonly DroppedMcpTool[];
}

/** What `registerMcpTools` did; kept current by refreshes. */
export interface RegisterMcpToolsResult {
  /** The tools registered now, in registration order. */
  readonly registered: readonly RegisteredMcpTool[];
  /** Tools left out at the last (re)registration, with the reason. */
  readonly dropped: readonly DroppedMcpTool[];
  /** Re-lists the server's tools and re-registers what changed. */
  refresh(): Promise<McpToolsChange>;
}

const OPTION_KEYS = [
  'allow',
  'permissionFor',
  'timeoutMs',
  'takenNames',
  'onWarning',
  'refreshOnChange',
  'onRefresh',
];

/**
 * Registers each tool of a connected MCP server as an ordinary `Tool` named `server__tool`:
 * `exec` unless the server claims `readOnlyHint` (and `permissionFor` does not pin otherwise),
 * arguments validated locally, results wrapped as untrusted text with media described. When the
 * server announces `notifications/tools/list_changed`, the list is read again (every page) and
 * new tools appear, removed ones are unregistered, changed ones are recompiled, with permissions
 * derived by the same rules; the change is reported as a warning (tool lists can be swapped
 * under a running agent).
 *
 * @example
 * ```ts
 * import { McpClient, registerMcpTools } from '@mh/mcp';
 * const client = new McpClient('fs', { command: 'mcp-server-filesystem', args: ['/data'] });
 * await client.connect();
 * const registered: Parameters<typeof registerMcpTools>[0] = { register: () => {} };
 * await registerMcpTools(registered, client, { allow: ['read_file'] });
 * ```
 */
export async function registerMcpTools(
  registry: ToolSink,
  client: McpToolSource,
  options: RegisterMcpToolsOptions = {},
): Promise<RegisterMcpToolsResult> {
  assertOptions(options, OPTION_KEYS, 'options');
  if (typeof registry?.register !== 'function') {
    throw new ConfigError('registry', 'expected an object with register(tool)');
  }
  if (typeof client?.listTools !== 'function' || typeof client.callTool !== 'function') {
    throw new ConfigError('client', 'expected an McpClient (with listTools() and callTool())');
  }
  if (options.allow !== undefined && !Array.isArray(options.allow)) {
    throw new ConfigError('options.allow', 'expected an array of tool names');
  }
  const registration = new McpToolRegistration(registry, client, options);
  await registration.refresh();
  if (options.refreshOnChange !== false && typeof client.onToolsChanged === 'function') {
    client.onToolsChanged(() => registration.scheduleRefresh());
  }
  return registration;
}

interface Entry {
  readonly handle: McpToolHandle;
  readonly fingerprint: string;
  readonly registered: RegisteredMcpTool;
}

class McpToolRegistration implements RegisterMcpToolsResult {
  readonly #sink: ToolSink;
  readonly #client: McpToolSource;
  readonly #options: RegisterMcpToolsOptions;
  readonly #warn: (message: string) => void;
  /** Current tools by the server's name for them. */
  #entries = new Map<string, Entry>();
  #dropped: DroppedMcpTool[] = [];
  #running: Promise<McpToolsChange> | undefined;
  #again = false;
  #first = true;

  constructor(sink: ToolSink, client: McpToolSource, options: RegisterMcpToolsOptions) {
    this.#sink = sink;
    this.#client = client;
    this.#options = options;
    this.#warn =
      options.onWarning ?? ((message: string): void => void process.emitWarning(message));
  }

  get registered(): readonly RegisteredMcpTool[] {
    return [...this.#entries.values()].map((entry) => entry.registered);
  }

  get dropped(): readonly DroppedMcpTool[] {
    return this.#dropped;
  }

  async refresh(): Promise<McpToolsChange> {
    while (this.#running) await this.#running.catch(() => {});
    this.#running = this.#client.listTools().then((listed) => this.#sync(listed));
    try {
      return await this.#running;
    } finally {
      this.#running = undefined;
      if (this.#again) {
        this.#again = false;
        this.scheduleRefresh();
      }
    }
  }

  /** Refreshes after a notification; a burst during a refresh causes one more, not one each. */
  scheduleRefresh(): void {
    if (this.#running) {
      this.#again = true;
      return;
    }
    this.refresh().catch((error: unknown) => {
      const reason = error instanceof Error ? error.message : String(error);
      this.#warn(`MCP server ${this.#client.name}: tool list refresh failed: ${reason}`);
    });
  }

  #sync(listed: readonly McpToolInfo[]): McpToolsChange {
    const server = this.#client.name;
    const names = assignToolNames(
      server,
      listed.map((tool) => tool.name),
      new Set(this.#options.takenNames ?? []),
    );
    const allow = this.#options.allow === undefined ? undefined : new Set(this.#options.allow);
    const next = new Map<string, Entry>();
    const added: string[] = [];
    const changed: string[] = [];
    const dropped: DroppedMcpTool[] = [];
    for (const info of listed) {
      const name = names.get(info.name) ?? info.name;
      if (allow && !allow.has(info.name) && !allow.has(name)) continue;
      const permission = mcpPermission(name, info.annotations, this.#options.permissionFor);
      if (!PERMISSIONS.includes(permission)) {
        throw new ConfigError(
          'options.permissionFor',
          `returned ${String(permission)} for ${name}`,
        );
      }
      const fingerprint = toolFingerprint(info, name, permission);
      const old = this.#entries.get(info.name);
      if (old?.fingerprint === fingerprint) {
        next.set(info.name, old);
        continue;
      }
      let handle: McpToolHandle;
      try {
        handle = mcpTool(this.#client, info, name, permission, this.#options.timeoutMs);
      } catch (error) {
        const reason = `invalid inputSchema: ${error instanceof Error ? error.message : String(error)}`;
        dropped.push({ name, reason });
        this.#warn(`MCP server ${server}: dropped tool ${info.name}: ${reason}`);
        continue;
      }
      if (old) this.#remove(old);
      try {
        this.#sink.register(handle.tool);
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        dropped.push({ name, reason });
        this.#warn(`MCP server ${server}: dropped tool ${info.name}: ${reason}`);
        continue;
      }
      (old ? changed : added).push(name);
      next.set(info.name, {
        handle,
        fingerprint,
        registered: { name, serverToolName: info.name, permission },
      });
    }
    const removed: string[] = [];
    for (const [serverName, entry] of this.#entries) {
      if (next.has(serverName)) continue;
      this.#remove(entry);
      removed.push(entry.registered.name);
    }
    this.#entries = next;
    this.#dropped = dropped;
    const change = { added, removed, changed, dropped };
    if (!this.#first && (added.length || removed.length || changed.length)) {
      const parts = [
        ...added.map((name) => `+${name}`),
        ...removed.map((name) => `-${name}`),
        ...changed.map((name) => `~${name}`),
      ];
      this.#warn(`MCP server ${server}: tool list changed: ${parts.join(', ')}`);
    }
    if (!this.#first) this.#options.onRefresh?.(change);
    this.#first = false;
    return change;
  }

  #remove(entry: Entry): void {
    if (typeof this.#sink.unregister === 'function') this.#sink.unregister(entry.registered.name);
    else entry.handle.retired = true;
  }
}
