import type { Agent, Message, SessionStore } from '@mh/sdk';
import { messageText } from '@mh/sdk';
import { UsageError } from './usage-error.js';

/** Writes text somewhere (the CLI's stdout). */
type Write = (text: string) => void;

function short(id: string | null): string {
  return id === null ? '(empty)' : id.slice(0, 12);
}

function time(ms: number): string {
  return new Date(ms)
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, 'Z');
}

/**
 * A message in one line: its text cut to `width` characters (ending in `…` when cut), then its
 * tool calls and results (`[calls: calculator; 1 result(s)]`), which a tool-calling turn has
 * instead of text, and ` [cut off]` for the partial answer a cancel left behind.
 */
export function messageSummary(message: Message, width: number): string {
  const full = messageText(message).replace(/\s+/g, ' ').trim();
  const text = full.length > width ? `${full.slice(0, width - 1)}…` : full;
  const calls = message.content
    .filter((block) => block.type === 'tool_use')
    .map((block) => block.name);
  const results = message.content.filter((block) => block.type === 'tool_result').length;
  const extra = [
    calls.length ? `calls: ${calls.join(', ')}` : '',
    results ? `${results} result(s)` : '',
  ]
    .filter(Boolean)
    .join('; ');
  const summary = extra ? `${text}${text ? ' ' : ''}[${extra}]` : text;
  // Kept so the conversation stays true to what was shown, but never finished: say so.
  return message.meta?.partial === true ? `${summary} [cut off]` : summary;
}

/** `mh --list-sessions`: one line per session, most recent first. */
export async function listSessions(store: SessionStore, write: Write): Promise<void> {
  const sessions = await store.listSessions();
  if (sessions.length === 0) {
    write('no sessions\n');
    return;
  }
  write(
    `${'id'.padEnd(28)} ${'turns'.padStart(5)}  ${'updated'.padEnd(20)}  ${'branch'.padEnd(12)}  title\n`,
  );
  for (const session of sessions) {
    const title = (session.title ?? '').replace(/\s+/g, ' ').slice(0, 60);
    write(
      `${session.id.padEnd(28)} ${String(session.turns).padStart(5)}  ${time(session.updatedAt)}  ${session.branch.padEnd(12)}  ${title}\n`,
    );
  }
}

/** The REPL commands that act on the session; each returns an exit-style code. */
export const SESSION_COMMANDS = [
  '/checkpoints',
  '/rewind',
  '/fork',
  '/branches',
  '/switch',
] as const;

/**
 * Runs a session command; `undefined` when `line` is not one. A mistake in the command (missing
 * argument, no such turn, no session) throws `UsageError`; the store's own refusals (an unknown
 * or existing branch) throw its `ConfigError`.
 */
export async function sessionCommand(
  agent: Agent,
  store: SessionStore | undefined,
  line: string,
  write: Write,
): Promise<number | undefined> {
  const [command, ...args] = line.trim().split(/\s+/);
  if (!(SESSION_COMMANDS as readonly string[]).includes(command ?? '')) return undefined;
  const session = agent.session;
  if (!store || !session) throw new UsageError('needs a session: start mh with --db PATH|URL');
  // A new session is stored with its first turn: until then the store does not know its id.
  if (!(await store.getSession(session.id)))
    return beforeFirstTurn(command ?? '', session.id, write);
  switch (command) {
    case '/checkpoints': {
      const checkpoints = await store.listCheckpoints(session.id, session.branch);
      const state = await store.load(session.id, session.branch);
      const byId = new Map(state.messages.map((message) => [message.id, message]));
      for (const checkpoint of checkpoints) {
        const first = byId.get(checkpoint.messageIds[0] ?? '');
        const text = first ? `${first.role}: ${messageSummary(first, 60)}` : '';
        write(
          `${String(checkpoint.turn).padStart(4)}  ${short(checkpoint.id)}  ${time(checkpoint.createdAt)}  ${text}\n`,
        );
      }
      return 0;
    }
    case '/rewind': {
      const turn = Number(args[0]);
      if (!Number.isInteger(turn) || turn < 0)
        throw new UsageError('usage: /rewind TURN [BRANCH]   (TURN from /checkpoints; 0 = empty)');
      const checkpoints = await store.listCheckpoints(session.id, session.branch);
      const target =
        turn === 0
          ? null
          : (checkpoints.find((checkpoint) => checkpoint.turn === turn)?.id ?? undefined);
      if (target === undefined)
        throw new UsageError(
          `no checkpoint at turn ${turn} on branch ${session.branch} (see /checkpoints)`,
        );
      const branch = args[1] ?? `${session.branch}-at-${turn}-${Date.now().toString(36)}`;
      const history = await agent.rewind(target, branch);
      write(
        `(rewound to turn ${turn} on new branch ${branch}: ${history.length} messages; ${session.branch} is unchanged)\n`,
      );
      return 0;
    }
    case '/fork': {
      const branch = args[0];
      if (!branch) throw new UsageError('usage: /fork NEW-BRANCH');
      await agent.fork(branch);
      write(`(forked ${session.branch} as ${branch}; now on ${branch})\n`);
      return 0;
    }
    case '/branches': {
      for (const branch of await store.listBranches(session.id)) {
        const mark = branch.name === session.branch ? '*' : ' ';
        write(
          `${mark} ${branch.name.padEnd(24)} ${String(branch.turns).padStart(4)} turns  head ${short(branch.head)}  ${time(branch.updatedAt)}\n`,
        );
      }
      return 0;
    }
    default: {
      const branch = args[0];
      if (!branch) throw new UsageError('usage: /switch BRANCH');
      const history = await agent.switchBranch(branch);
      write(`(now on ${branch}: ${history.length} messages)\n`);
      return 0;
    }
  }
}

/** What the listed session commands want, for a new session none of whose turns is stored yet. */
const NOTHING_YET: Readonly<Record<string, string>> = {
  '/checkpoints': 'no checkpoints to list',
  '/branches': 'no branches to list',
  '/fork': 'nothing to fork',
  '/rewind': 'nothing to rewind',
  '/switch': 'no branch to switch to',
};

/**
 * A session command in a new session before its first prompt: the listings are empty (exit 0),
 * the moves have nothing to act on (a `UsageError`, exit 2).
 */
function beforeFirstTurn(command: string, sessionId: string, write: Write): number {
  const nothing = NOTHING_YET[command] ?? 'nothing to do';
  if (command === '/checkpoints' || command === '/branches') {
    write(`(session ${sessionId} has no turns yet: ${nothing})\n`);
    return 0;
  }
  throw new UsageError(`this session has no turns yet: ${nothing} (ask something first)`);
}
