/** One field that differs between a recorded request and the one sent now. */
export interface RequestDifference {
  /** Where, e.g. `system`, `tools[2].inputSchema.properties.path.type`, `messages[3].content[0].text`. */
  readonly path: string;
  /** The recorded value (undefined when absent). */
  readonly recorded: unknown;
  /** The value sent now (undefined when absent). */
  readonly actual: unknown;
}

type Json = Record<string, unknown>;

/** The order requests are compared in: what shapes the prompt first, sampling parameters last. */
const FIELD_ORDER = [
  'model',
  'system',
  'tools',
  'messages',
  'maxOutputTokens',
  'temperature',
  'stopSequences',
];

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A boundary drawn by core's `newBoundary`. */
const BOUNDARY = /untrusted-[a-z]{20}(?![a-z-])/g;

/** `value` with `rename` applied to every string in it, at any depth. */
function mapStrings(value: unknown, rename: (text: string) => string): unknown {
  if (typeof value === 'string') return rename(value);
  if (Array.isArray(value)) return value.map((item) => mapStrings(item, rename));
  if (!isObject(value)) return value;
  const mapped: Json = {};
  for (const [key, item] of Object.entries(value)) mapped[key] = mapStrings(item, rename);
  return mapped;
}

/**
 * A request in the form it is compared in. Identity that is random per run is dropped or
 * renamed: message `id` and `meta` are never sent to a provider, so they go; tool-call ids are
 * renamed `#1`, `#2`… in order of first appearance (the same map renames `tool_result.toolUseId`),
 * so a replay does not drift on ids but a result answering a different call still does. The
 * random fence boundary of the Agent's prompt-injection defence (`untrusted-` and 20 letters,
 * drawn per agent by core's `newBoundary`) is renamed the same way in the system prompt and the
 * messages: a fence that moved or vanished still shows.
 */
export function normalizeRequest(request: unknown): Json {
  if (!isObject(request)) return {};
  const ids = new Map<string, string>();
  const idOf = (raw: unknown): unknown => {
    if (typeof raw !== 'string') return raw;
    let id = ids.get(raw);
    if (id === undefined) {
      id = `#${ids.size + 1}`;
      ids.set(raw, id);
    }
    return id;
  };
  const boundaries = new Map<string, string>();
  const renameBoundaries = (text: string): string =>
    text.includes('untrusted-')
      ? text.replace(BOUNDARY, (boundary) => {
          let renamed = boundaries.get(boundary);
          if (renamed === undefined) {
            renamed = `untrusted-#${boundaries.size + 1}`;
            boundaries.set(boundary, renamed);
          }
          return renamed;
        })
      : text;
  const system =
    typeof request.system === 'string' ? renameBoundaries(request.system) : request.system;
  const messages = Array.isArray(request.messages)
    ? request.messages.map((message: unknown) => {
        if (!isObject(message)) return message;
        const content = Array.isArray(message.content)
          ? message.content.map((block: unknown) => {
              if (!isObject(block)) return block;
              if (block.type === 'tool_use') return { ...block, id: idOf(block.id) };
              const strings = mapStrings(block, renameBoundaries) as Json;
              if (block.type === 'tool_result')
                return { ...strings, toolUseId: idOf(block.toolUseId) };
              return strings;
            })
          : message.content;
        return { role: message.role, content };
      })
    : request.messages;
  return { ...request, system, messages };
}

function segment(key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
}

function toolNames(tools: unknown): string[] | undefined {
  if (!Array.isArray(tools)) return undefined;
  return tools.map((tool: unknown) =>
    isObject(tool) && typeof tool.name === 'string' ? tool.name : '',
  );
}

class Differ {
  readonly found: RequestDifference[] = [];
  readonly #limit: number;

  constructor(limit: number) {
    this.#limit = limit;
  }

  get full(): boolean {
    return this.found.length >= this.#limit;
  }

  add(path: string, recorded: unknown, actual: unknown): void {
    if (!this.full) this.found.push({ path, recorded, actual });
  }

  value(recorded: unknown, actual: unknown, path: string): void {
    if (this.full || recorded === actual) return;
    if (Array.isArray(recorded) && Array.isArray(actual)) {
      const length = Math.max(recorded.length, actual.length);
      for (let index = 0; index < length && !this.full; index++)
        this.value(recorded[index], actual[index], `${path}[${index}]`);
      return;
    }
    if (isObject(recorded) && isObject(actual)) {
      const keys = new Set([...Object.keys(recorded), ...Object.keys(actual)]);
      for (const key of keys) {
        if (this.full) return;
        this.value(recorded[key], actual[key], `${path}${segment(key)}`);
      }
      return;
    }
    this.add(path, recorded, actual);
  }

  /** Tools are matched by name, so one added tool is one finding, not one per later index. */
  tools(recorded: unknown, actual: unknown): void {
    const recordedNames = toolNames(recorded);
    const actualNames = toolNames(actual);
    if (recordedNames === undefined || actualNames === undefined) {
      this.value(recorded, actual, 'tools');
      return;
    }
    if (recordedNames.join('\u0000') !== actualNames.join('\u0000'))
      this.add('tools', recordedNames, actualNames);
    const recordedTools = recorded as unknown[];
    for (const [index, tool] of (actual as unknown[]).entries()) {
      const name = actualNames[index];
      const before = recordedTools[recordedNames.indexOf(name ?? '')];
      if (before !== undefined) this.value(before, tool, `tools[${index}]`);
    }
  }
}

/**
 * Compares two requests field by field after `normalizeRequest`, in the order model, system,
 * tools, messages, maxOutputTokens, temperature, stopSequences, then any other field. Returns at
 * most `limit` differences (a history that shifted would otherwise list every later message).
 * Values must be JSON (undefined and absent are the same).
 */
export function diffRequests(recorded: unknown, actual: unknown, limit = 20): RequestDifference[] {
  const before = normalizeRequest(recorded);
  const after = normalizeRequest(actual);
  const differ = new Differ(limit);
  const extra = [...new Set([...Object.keys(before), ...Object.keys(after)])]
    .filter((key) => !FIELD_ORDER.includes(key))
    .sort();
  for (const key of [...FIELD_ORDER, ...extra]) {
    if (differ.full) break;
    if (key === 'tools') differ.tools(before.tools, after.tools);
    else differ.value(before[key], after[key], key);
  }
  return differ.found;
}

/**
 * Compares two JSON values field by field under `path` (e.g. a tool call's input); at most
 * `limit` differences.
 */
export function diffValues(
  recorded: unknown,
  actual: unknown,
  path: string,
  limit = 20,
): RequestDifference[] {
  const differ = new Differ(limit);
  differ.value(recorded, actual, path);
  return differ.found;
}

/** `base.key`, or `base["odd key"]` when the key is not an identifier. */
export function joinPath(base: string, key: string): string {
  return `${base}${segment(key)}`;
}
