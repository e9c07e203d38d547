import {
  ConfigError,
  fencingRule,
  type Message,
  newBoundary,
  type ToolExecutor,
  type ToolResultBlock,
} from '@mh/core';
import { assertOptions, checkBoundary, fenceBoundaryOf } from '@mh/core/internal';
import { FencingExecutor, fenceToolResult, unfenceToolResult } from '@mh/tools/zod-free';

/** Settings of the fencing of tool results (`AgentOptions.fencing`). */
export interface FencingOptions {
  /**
   * The boundary token of the fences: 8 to 64 lowercase letters or hyphens, starting with a letter.
   * Default: a random one per agent, replaced by the one a loaded session was fenced with. Fix it
   * from configuration (a secret, never a constant in code) when requests must be byte-identical
   * across runs or sessions (cassettes, a system prompt cached across conversations).
   */
  readonly boundary?: string;
}

/** @deprecated Use `FencingOptions`; this name goes away in the next minor version. */
export type InjectionDefenseOptions = FencingOptions;

/** The two keys an agent's fencing can be set with: `fencing`, and its deprecated name. */
export interface FencingSetting {
  /** `AgentOptions.fencing`. */
  readonly fencing?: boolean | FencingOptions;
  /** `AgentOptions.injectionDefense`, the deprecated name of `fencing`. */
  readonly injectionDefense?: boolean | FencingOptions;
}

/**
 * Re-fences the results of a history with the boundary in use; unchanged messages are kept. With
 * `journaled` (the turn a crashed agent journaled), a result fenced with a boundary no checkpoint
 * recorded is moved too, read from its own fence: that agent may have fenced with a configured
 * token it never got to commit.
 */
export type Refence = (
  messages: readonly Message[],
  options?: { readonly journaled?: boolean },
) => Message[];

/**
 * Applies `AgentOptions.fencing` (default on): tool results are fenced as untrusted data
 * and a rule appended to the system prompt says what the fence means. The boundary is drawn once
 * per agent, not per run, so the system prompt (the start of the cached prefix) stays the same for
 * the whole conversation; with a session it follows the boundary the session's results were fenced
 * with (`follow`). Without tools and fenced history there is nothing to fence and nothing changes.
 */
export class AgentFencing {
  readonly #off: boolean;
  readonly #given: string | undefined;
  readonly #system: string | undefined;
  readonly #inner: ToolExecutor | undefined;
  #boundary: string | undefined;
  #executor: ToolExecutor | undefined;

  /**
   * Validates the setting (a `ConfigError` names the field as the user wrote it, and both fields
   * when `fencing` and its deprecated name `injectionDefense` are both given) and draws the
   * boundary.
   */
  constructor(
    setting: FencingSetting,
    system: string | undefined,
    executor: ToolExecutor | undefined,
  ) {
    if (setting.fencing !== undefined && setting.injectionDefense !== undefined) {
      throw new ConfigError(
        'fencing',
        'give either fencing or injectionDefense (its deprecated name), not both',
      );
    }
    const field = setting.fencing === undefined ? 'injectionDefense' : 'fencing';
    const option = setting.fencing ?? setting.injectionDefense;
    if (option !== undefined && typeof option !== 'boolean') {
      if (typeof option !== 'object' || option === null)
        throw new ConfigError(field, 'expected a boolean or { boundary }');
      assertOptions(option, ['boundary'], field);
    }
    const given = typeof option === 'object' ? option.boundary : undefined;
    if (given !== undefined) checkBoundary(given, `${field}.boundary`);
    this.#off = option === false;
    this.#given = given;
    this.#system = system;
    this.#inner = executor;
    this.#executor = executor;
    if (!this.#off && executor !== undefined) this.#use(given ?? newBoundary());
  }

  /** The boundary in use; undefined when fencing is off or there is nothing to fence. */
  get boundary(): string | undefined {
    return this.#boundary;
  }

  /** The system prompt with the rule appended (the rule alone when there was none). */
  get system(): string | undefined {
    if (this.#boundary === undefined) return this.#system;
    const rule = fencingRule(this.#boundary);
    return this.#system === undefined || this.#system.trim() === ''
      ? rule
      : `${this.#system}\n\n${rule}`;
  }

  /** The executor whose results are fenced with the boundary in use. */
  get executor(): ToolExecutor | undefined {
    return this.#executor;
  }

  /**
   * Follows a session branch whose results were fenced with `stored` (its recorded boundaries,
   * oldest first): a random boundary gives way to the newest stored one, so the rule and the
   * stored results name the same token; a given boundary stays, and results fenced with any
   * stored boundary are re-fenced with it in the agent's view (the store keeps what was sent).
   * With no stored boundary (a session older than the record) the agent keeps its own. A token
   * seen only inside stored content is never trusted. With fencing off, stored fences stay.
   */
  follow(stored: readonly string[]): Refence {
    if (this.#off) return (messages) => messages.slice();
    const newest = stored.at(-1);
    if (newest !== undefined && (this.#given ?? newest) !== this.#boundary)
      this.#use(this.#given ?? newest);
    const target = this.#boundary;
    if (target === undefined) return (messages) => messages.slice();
    const recorded = refencer(new Set(stored.filter((boundary) => boundary !== target)), target);
    return (messages, options) => {
      if (!options?.journaled) return recorded(messages);
      // The journal holds what the crashed agent's executor fenced; its token is read from each
      // result's own fence only to move the data into ours (never adopted: the rule keeps ours).
      const found = new Set(stored);
      for (const block of messages.flatMap((message) => message.content)) {
        const first = block.type === 'tool_result' ? block.content[0] : undefined;
        const token = first?.type === 'text' ? fenceBoundaryOf(first.text) : undefined;
        if (token !== undefined) found.add(token);
      }
      found.delete(target);
      return refencer(found, target)(messages);
    };
  }

  #use(boundary: string): void {
    this.#boundary = boundary;
    if (this.#inner) this.#executor = new FencingExecutor({ executor: this.#inner, boundary });
  }
}

/** Re-fences results fenced with a boundary in `from` with `to`; one new object per message. */
function refencer(from: ReadonlySet<string>, to: string): Refence {
  const done = new WeakMap<Message, Message>();
  return (messages) => {
    if (from.size === 0) return messages.slice();
    const names = new Map<string, string>();
    return messages.map((message) => {
      for (const block of message.content)
        if (block.type === 'tool_use') names.set(block.id, block.name);
      const known = done.get(message);
      if (known) return known;
      let changed = false;
      const content = message.content.map((block) => {
        if (block.type !== 'tool_result') return block;
        const name = names.get(block.toolUseId);
        const moved = name === undefined ? undefined : refenceResult(block, name, from, to);
        if (moved) changed = true;
        return moved ?? block;
      });
      const result = changed ? { ...message, content } : message;
      done.set(message, result);
      return result;
    });
  };
}

function refenceResult(
  result: ToolResultBlock,
  toolName: string,
  from: ReadonlySet<string>,
  to: string,
): ToolResultBlock | undefined {
  for (const boundary of from) {
    const unfenced = unfenceToolResult(result, toolName, boundary);
    if (unfenced) return fenceToolResult(unfenced, toolName, to);
  }
  return undefined;
}
