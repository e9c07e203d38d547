import { UsageError } from './usage-error.js';

/**
 * The flags of a run that a listing has nothing to apply to. The provider flags, `--db`, `--root`,
 * `--grant` and `--mcp` stay allowed: they choose what is listed (or do no harm).
 */
const RUN_FLAGS = [
  'session',
  'system',
  'max-turns',
  'timeout-ms',
  'max-output-tokens',
  'context-window',
  'no-compaction',
  'fake-delay-ms',
  'trace',
  'record',
  'replay',
] as const;

/** What of the parsed command line the check reads: which flags were given, and the prompt. */
type GivenFlags = {
  readonly [flag in (typeof RUN_FLAGS)[number] | 'list-sessions' | 'list-tools']?: unknown;
};

/**
 * Throws `UsageError` when `--list-sessions` or `--list-tools` comes with a prompt, with the
 * other listing or with a run flag: the listing exits at once, so the prompt would not run and
 * the flag would do nothing, without a word (a script would believe its prompt had run).
 */
export function refuseListingConflicts(values: GivenFlags, prompt: string | undefined): void {
  const listing = values['list-sessions']
    ? 'list-sessions'
    : values['list-tools']
      ? 'list-tools'
      : undefined;
  if (listing === undefined) return;
  const what = listing === 'list-sessions' ? 'the sessions' : 'the tools';
  const why = `--${listing} lists ${what} and exits`;
  if (prompt !== undefined)
    throw new UsageError(
      `--${listing} and a prompt exclude each other (${why}; run the prompt without it)`,
    );
  const conflicts = [
    ...(listing === 'list-sessions' && values['list-tools'] ? ['list-tools'] : []),
    ...RUN_FLAGS.filter((flag) => values[flag] !== undefined),
  ];
  const first = conflicts[0];
  if (first !== undefined)
    throw new UsageError(
      `--${listing} and --${first} exclude each other (${why}; --${first} has nothing to apply to)`,
    );
}
