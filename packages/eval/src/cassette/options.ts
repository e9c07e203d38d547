import { type Clock, ConfigError } from '@mh/core';
import { assertImplements, assertOptions } from '@mh/core/internal';
import {
  REPLAY_TIMINGS,
  type ReplayTiming,
  TOOL_REPLAY_MODES,
  type ToolReplayMode,
} from './context.js';
import { CASSETTE_MODES, type CassetteKey, type CassetteMode } from './format.js';

/** Options of `openCassette`. */
export interface CassetteOptions {
  /** `record`, `replay` (unrecorded requests fall through to the inner provider) or `lockdown`. */
  readonly mode: CassetteMode;
  /** Replay modes: fail a call at its first drift with `ReplayDriftError` (default true). */
  readonly strict?: boolean;
  /** Record mode: replace an existing file instead of refusing it (default false). */
  readonly overwrite?: boolean;
  /**
   * Record mode: add recordings to an existing cassette (its header and recordings are kept; a
   * key it already holds is refused), or create it when there is none (default false). For runs
   * that continue in another process, e.g. a resume after an interrupt, under a key of their own.
   */
  readonly append?: boolean;
  /** Record mode: notes for the header (provider, model, harness commit, flags); JSON only. */
  readonly meta?: Readonly<Record<string, unknown>>;
  /** Replay modes: `none` (default) serves events at once, `recorded` at their recorded pace. */
  readonly timing?: ReplayTiming;
  /** Literal secrets to mask in recorded lines, besides key shapes and `*_API_KEY` values. */
  readonly secrets?: readonly string[];
  /**
   * Replay modes: `live` or `served` per tool name (e.g. `{ calculator: 'live' }` for a
   * deterministic tool, `{ search: 'served' }` for a read tool whose answers change). Default:
   * a `read` tool the current policy would run without asking runs live and its result is
   * compared with the recorded one; `write` and `exec` tools are served.
   */
  readonly toolModes?: Readonly<Record<string, ToolReplayMode>>;
  /** Replay modes: warn when the recording is older than this, in milliseconds. */
  readonly maxAgeMs?: number;
  /** Receives warnings (a truncated last line, an old recording); they are kept in `warnings`. */
  readonly onWarning?: (message: string) => void;
  /** Times events and paces replays (default: a high-resolution clock). */
  readonly clock?: Clock;
}

const OPTION_KEYS = [
  'mode',
  'strict',
  'overwrite',
  'append',
  'meta',
  'timing',
  'toolModes',
  'secrets',
  'maxAgeMs',
  'onWarning',
  'clock',
];

/** Throws `ConfigError` naming the first bad argument of `openCassette`. */
export function checkOptions(path: unknown, options: CassetteOptions): void {
  if (typeof path !== 'string' || path.trim() === '')
    throw new ConfigError('path', 'expected the path of a cassette file');
  assertOptions(options, OPTION_KEYS, 'options');
  if (!(CASSETTE_MODES as readonly unknown[]).includes(options.mode))
    throw new ConfigError('options.mode', `expected one of ${CASSETTE_MODES.join(', ')}`);
  for (const flag of ['strict', 'overwrite', 'append'] as const) {
    if (options[flag] !== undefined && typeof options[flag] !== 'boolean')
      throw new ConfigError(`options.${flag}`, 'expected a boolean');
  }
  if (options.append === true && options.mode !== 'record')
    throw new ConfigError('options.append', 'only record mode appends');
  if (options.append === true && options.overwrite === true)
    throw new ConfigError('options.append', 'give append or overwrite, not both');
  if (options.meta !== undefined) {
    if (typeof options.meta !== 'object' || options.meta === null || Array.isArray(options.meta))
      throw new ConfigError('options.meta', 'expected an object');
    try {
      JSON.stringify(options.meta);
    } catch (error) {
      throw new ConfigError('options.meta', 'expected JSON data', { cause: error });
    }
  }
  if (
    options.timing !== undefined &&
    !(REPLAY_TIMINGS as readonly unknown[]).includes(options.timing)
  )
    throw new ConfigError('options.timing', `expected one of ${REPLAY_TIMINGS.join(', ')}`);
  if (options.toolModes !== undefined) {
    const modes: unknown = options.toolModes;
    if (typeof modes !== 'object' || modes === null || Array.isArray(modes))
      throw new ConfigError('options.toolModes', 'expected { toolName: "live" | "served" }');
    for (const [name, mode] of Object.entries(modes))
      if (!(TOOL_REPLAY_MODES as readonly unknown[]).includes(mode))
        throw new ConfigError(
          `options.toolModes.${name}`,
          `expected one of ${TOOL_REPLAY_MODES.join(', ')}, got ${String(mode)}`,
        );
  }
  if (
    options.secrets !== undefined &&
    (!Array.isArray(options.secrets) ||
      options.secrets.some((secret) => typeof secret !== 'string'))
  )
    throw new ConfigError('options.secrets', 'expected an array of strings');
  if (
    options.maxAgeMs !== undefined &&
    (typeof options.maxAgeMs !== 'number' || !(options.maxAgeMs > 0))
  )
    throw new ConfigError('options.maxAgeMs', 'expected a number of milliseconds > 0');
  if (options.onWarning !== undefined && typeof options.onWarning !== 'function')
    throw new ConfigError('options.onWarning', 'expected a function');
  assertImplements(options.clock, ['now', 'sleep'], 'options.clock', 'a Clock');
}

/** Throws `ConfigError` unless `key` is `{ case: non-empty string, repeat: integer >= 0 }`. */
export function checkKey(key: CassetteKey): void {
  if (typeof key !== 'object' || key === null)
    throw new ConfigError('key', 'expected { case, repeat }');
  if (typeof key.case !== 'string' || key.case === '')
    throw new ConfigError('key.case', 'expected a non-empty case id');
  if (!Number.isInteger(key.repeat) || key.repeat < 0)
    throw new ConfigError('key.repeat', `expected an integer >= 0, got ${String(key.repeat)}`);
}
