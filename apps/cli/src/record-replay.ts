import type { Cassette, CassetteFileError, CassetteKey, DriftFinding } from '@mh/eval';
import type { Provider, ToolRegistry } from '@mh/sdk';
import { PolicyToolExecutor } from '@mh/sdk';
import type { CliOptions } from './args.js';
import { UsageError } from './usage-error.js';

/** The key of mh's recordings: one conversation per file. */
export const CLI_KEY: CassetteKey = { case: 'mh', repeat: 0 };

/**
 * The key a run records under or replays: `CLI_KEY`, or for a resume given `--approve`/`--deny`
 * (another process, after the run that ended with calls waiting) `mh resume ID…`, the decided
 * call ids in order. A replay of that resume finds its recording by the calls it decides, so a
 * replay deciding otherwise (deny what was approved) pairs with it and reports the drift.
 */
export function cliKey(options: Pick<CliOptions, 'decisions'>): CassetteKey {
  if (options.decisions.length === 0) return CLI_KEY;
  const ids = options.decisions.map((decision) => decision.callId).sort();
  return { case: `mh resume ${ids.join(' ')}`, repeat: 0 };
}

/** `the recording has no resume deciding ID…`: the call ids of a resume key, for messages. */
const decidedIds = (key: CassetteKey): string => key.case.slice('mh resume '.length);

/** The exit code of a replay that drifted from its recording. */
export const DRIFT_EXIT_CODE = 3;

/**
 * Opens the cassette `--record` or `--replay` names. `--replay` without a provider is a lockdown
 * (nothing but the recording answers); with one, calls beyond the recording go to it and are
 * appended. Replays are lenient: the whole run is served and every drift listed at the end.
 * A resume with `--approve`/`--deny` records into the cassette of the run it resumes (appended
 * under its own key, see `cliKey`); its replay needs that recording. The eval toolkit loads only
 * when one of the two is given.
 */
export async function openCliCassette(
  options: CliOptions,
  model: string,
  warn: (message: string) => void,
): Promise<Cassette | undefined> {
  if (options.record === undefined && options.replay === undefined) return undefined;
  const { CassetteFileError, openCassette } = await import('@mh/eval');
  let cassette: Cassette | undefined;
  try {
    if (options.record !== undefined) {
      cassette = await openCassette(options.record, {
        mode: 'record',
        append: options.decisions.length > 0,
        meta: { recordedBy: 'mh', provider: options.provider, model },
        onWarning: warn,
      });
    } else if (options.replay !== undefined) {
      cassette = await openCassette(options.replay, {
        mode: options.provider === undefined ? 'lockdown' : 'replay',
        strict: false,
        onWarning: warn,
      });
    }
  } catch (error) {
    throw CassetteFileError.isInstance(error) ? cassetteUsageError(error, options) : error;
  }
  if (cassette !== undefined) await refuseResumeKey(cassette, options);
  return cassette;
}

/**
 * A resume's key must be new to a recording (a call is decided once) and, in a lockdown replay,
 * be in it: nothing else could answer. Closes the cassette before refusing.
 */
async function refuseResumeKey(cassette: Cassette, options: CliOptions): Promise<void> {
  const key = cliKey(options);
  if (key === CLI_KEY) return;
  const recorded = cassette.keys().some((known) => known.case === key.case);
  const problem =
    cassette.mode === 'record' && recorded
      ? `--record ${cassette.path}: the recording already has a resume deciding ${decidedIds(key)}`
      : cassette.mode === 'lockdown' && !recorded
        ? `--replay ${cassette.path}: the recording has no resume deciding ${decidedIds(key)} (record one: repeat the recorded run's --record with the same --approve/--deny)`
        : undefined;
  if (problem === undefined) return;
  await cassette.close();
  throw new UsageError(problem);
}

/**
 * A cassette file error in the command line's words: the flag instead of the library's `path`
 * field, and advice a user of `mh` can follow (there is no `overwrite` or `mode` flag).
 */
function cassetteUsageError(error: CassetteFileError, options: CliOptions): UsageError {
  const flag = options.record !== undefined ? '--record' : '--replay';
  switch (error.problem) {
    case 'exists':
      return new UsageError(
        `--record ${error.path}: a cassette already exists here; record to a new file or delete this one`,
      );
    case 'missing':
      return new UsageError(
        `--replay ${error.path}: no cassette here (record one with --record ${error.path})`,
      );
    default:
      // The message is `path: <path>: <what is wrong>`; keep all of it but the field name.
      return new UsageError(`${flag} ${error.message.slice(`${error.field}: `.length)}`);
  }
}

/** The model a replay should ask for: the recorded one, unless `--model` says otherwise. */
export function recordedModel(cassette: Cassette | undefined): string | undefined {
  const model = cassette?.mode === 'record' ? undefined : cassette?.header.meta.model;
  return typeof model === 'string' && model !== '' ? model : undefined;
}

/** The provider of the run: the live one, recorded or replayed through the cassette. */
export function cassetteProvider(
  cassette: Cassette | undefined,
  live: Provider | undefined,
  key: CassetteKey = CLI_KEY,
): Provider {
  if (cassette) return cassette.provider(live, key);
  if (!live) throw new Error('a provider is needed without --replay');
  return live;
}

/**
 * The tools of the run: the registry, or an executor recording or serving their results. An
 * ungranted call waits for a person there too (as the agent's own executor does without a
 * cassette), so a recorded or replayed run ends with it waiting instead of denying it.
 */
export function cassetteTools(
  cassette: Cassette | undefined,
  registry: ToolRegistry,
  grants: CliOptions['grants'],
  key: CassetteKey = CLI_KEY,
): ToolRegistry | PolicyToolExecutor | ReturnType<Cassette['tools']> {
  if (!cassette) return registry;
  const executor = new PolicyToolExecutor({ registry, grants: [...grants], onAsk: 'interrupt' });
  return cassette.tools(executor, key);
}

/**
 * Closes the cassette after the run and reports on stderr: where a recording went, or a replay's
 * drift, one finding per line. A replay that drifted exits with `DRIFT_EXIT_CODE`.
 */
export async function closeCliCassette(
  cassette: Cassette,
  code: number,
  err: { write(text: string): unknown },
): Promise<number> {
  const { drifts } = await cassette.close();
  if (cassette.mode === 'record') {
    err.write(`(recorded to ${cassette.path})\n`);
    return code;
  }
  if (drifts.length === 0) {
    err.write(`(replayed ${cassette.path}: no drift)\n`);
    return code;
  }
  // A changed system prompt drifts in every request: one line per field, with the count. Each
  // compaction finding keeps its line: one says where it went missing, the next where it is now.
  const groups = new Map<string, DriftFinding[]>();
  for (const drift of drifts) {
    const group = drift.kind === 'compaction' ? drift.message : `${drift.kind} ${drift.path}`;
    groups.set(group, [...(groups.get(group) ?? []), drift]);
  }
  err.write(`mh: the replay drifted from ${cassette.path} (${drifts.length} finding(s)):\n`);
  for (const [first, ...more] of groups.values()) {
    const also = more.length > 0 ? ` (and in ${more.length} later request(s))` : '';
    err.write(`  ${first?.message}${also}\n`);
  }
  return DRIFT_EXIT_CODE;
}
