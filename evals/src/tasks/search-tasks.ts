import { textAnswer } from '../grading/comparators.js';
import {
  callTool,
  finalAnswer,
  giveUp,
  grepMatches,
  type OraclePolicy,
  resultOf,
} from '../oracle/oracle-policy.js';
import { fileText, pathsUnder } from '../workspace/generate-workspace.js';
import { markdownRows } from '../workspace/read-text.js';
import type { Task } from './task.js';

const OWNERS = 'notes/team-owners.md';
const TICKETS = 'notes/tickets.md';
const APP = 'config/app.json';
const DAY = '2024-03-02';

/** Failed requests (5xx) per service in log lines. */
export function failuresByService(lines: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const line of lines) {
    const service = /\[([\w-]+)\] [A-Z]+ \S+ 5\d\d \d+ms/.exec(line)?.[1];
    if (service) counts.set(service, (counts.get(service) ?? 0) + 1);
  }
  return counts;
}

/** Services ranked by failures, most first (ties by name, so the order is stable). */
function ranked(counts: Map<string, number>): string[] {
  return [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([name]) => name);
}

function ownerOf(ownersText: string, service: string): string | undefined {
  return markdownRows(ownersText).find((row) => row[0] === service)?.[1];
}

function ownerPolicy(day: string, rank: number): OraclePolicy {
  return (view) => {
    const log = `logs/api-${day}.log`;
    const found = resultOf(view, 'grep', { path: log });
    if (!found) return callTool('grep', { pattern: ' 5\\d\\d \\d+ms', path: log });
    const service = ranked(failuresByService(grepMatches(found.text).map((m) => m.text)))[rank];
    if (!service) return giveUp('no failed requests in the log');
    const owners = resultOf(view, 'read_file', { path: OWNERS });
    const note = `NOTE most failures on ${day}: ${service}`;
    if (!owners) return callTool('read_file', { path: OWNERS }, [note]);
    const owner = ownerOf(owners.text, service);
    return owner ? finalAnswer(owner, [note]) : giveUp(`no owner for ${service}`);
  };
}

const ownerOfFailingService: Task = {
  id: 'search-owner-of-failing-service',
  category: 'search',
  prompts: [
    `On ${DAY}, which service logged the most failed requests (HTTP status 5xx) in ` +
      `logs/api-${DAY}.log, and who owns that service according to ${OWNERS}? ` +
      'End your reply with a line of the form `ANSWER: <owner name>`.',
  ],
  expected: (workspace) => {
    const log = fileText(workspace, `logs/api-${DAY}.log`).split('\n');
    const counts = failuresByService(log);
    const [top, second] = ranked(counts);
    if (!top || counts.get(top) === counts.get(second ?? ''))
      throw new Error('no unique top service');
    const owner = ownerOf(fileText(workspace, OWNERS), top);
    if (!owner) throw new Error(`no owner for ${top}`);
    return owner;
  },
  comparator: textAnswer(),
  oracle: ownerPolicy(DAY, 0),
  saboteurs: [
    {
      name: 'owner of the second most failing service',
      expect: 'wrong',
      policy: ownerPolicy(DAY, 1),
    },
    { name: 'wrong day (previous log)', expect: 'wrong', policy: ownerPolicy('2024-03-01', 0) },
  ],
};

function profileHost(text: string): string | undefined {
  try {
    return (JSON.parse(text) as { host?: string }).host;
  } catch {
    return undefined;
  }
}

function hostPolicy(choose: (selected: number) => number): OraclePolicy {
  return (view) => {
    const app = resultOf(view, 'read_file', { path: APP });
    if (!app) return callTool('read_file', { path: APP });
    const selected = /"profile":\s*"profile-(\d+)"/.exec(app.text)?.[1];
    if (selected === undefined) return giveUp(`${APP} names no profile`);
    const path = `config/db-profiles/profile-${choose(Number(selected))}.json`;
    const profile = resultOf(view, 'read_file', { path });
    if (!profile)
      return callTool('read_file', { path }, [`NOTE ${APP} selects profile-${selected}`]);
    const host = profileHost(profile.text);
    return host ? finalAnswer(host) : giveUp(`${path} has no host`);
  };
}

const databaseHost: Task = {
  id: 'search-database-host',
  category: 'search',
  prompts: [
    `Which database host does the app connect to? ${APP} selects a profile from ` +
      'config/db-profiles/. End your reply with a line of the form `ANSWER: <host>`.',
  ],
  expected: (workspace) => {
    const app = JSON.parse(fileText(workspace, APP)) as { database: { profile: string } };
    const host = profileHost(
      fileText(workspace, `config/db-profiles/${app.database.profile}.json`),
    );
    if (!host) throw new Error('the selected profile has no host');
    return host;
  },
  comparator: textAnswer(),
  oracle: hostPolicy((selected) => selected),
  saboteurs: [
    { name: 'off by one (the next profile)', expect: 'wrong', policy: hostPolicy((n) => n + 1) },
    { name: 'the first profile', expect: 'wrong', policy: hostPolicy(() => 1) },
  ],
};

function assigneePolicy(kind: 'FIXME' | 'TODO', rowOffset: number): OraclePolicy {
  return (view) => {
    const comments = resultOf(view, 'grep', { path: 'src' });
    if (!comments) return callTool('grep', { pattern: `${kind}\\(HB-\\d+\\)`, path: 'src' });
    const ticket = /\((HB-\d+)\)/.exec(grepMatches(comments.text)[0]?.text ?? '')?.[1];
    if (!ticket) return giveUp(`no ${kind} comment with a ticket`);
    const table = resultOf(view, 'read_file', { path: TICKETS });
    if (!table)
      return callTool('read_file', { path: TICKETS }, [`NOTE the ${kind} names ${ticket}`]);
    const rows = markdownRows(table.text);
    const row = rows[rows.findIndex((entry) => entry[0] === ticket) + rowOffset];
    return row?.[2] ? finalAnswer(row[2]) : giveUp(`no row for ${ticket}`);
  };
}

const fixmeAssignee: Task = {
  id: 'search-fixme-assignee',
  category: 'search',
  prompts: [
    `The only FIXME comment in src/ names a ticket. Who is assigned to that ticket in ${TICKETS}? ` +
      'End your reply with a line of the form `ANSWER: <assignee name>`.',
  ],
  expected: (workspace) => {
    const tickets = pathsUnder(workspace, 'src/').flatMap((path) =>
      [...fileText(workspace, path).matchAll(/FIXME\((HB-\d+)\)/g)].map((match) => match[1]),
    );
    if (tickets.length !== 1) throw new Error(`expected one FIXME, found ${tickets.length}`);
    const row = markdownRows(fileText(workspace, TICKETS)).find((entry) => entry[0] === tickets[0]);
    if (!row?.[2]) throw new Error(`no ticket row for ${tickets[0]}`);
    return row[2];
  },
  comparator: textAnswer(),
  oracle: assigneePolicy('FIXME', 0),
  saboteurs: [
    { name: 'a TODO ticket instead', expect: 'wrong', policy: assigneePolicy('TODO', 0) },
    { name: 'the next row of the table', expect: 'wrong', policy: assigneePolicy('FIXME', 1) },
  ],
};

/** Multi-step searches: each needs two or more tools, one result leading to the next. */
export const SEARCH_TASKS: readonly Task[] = [ownerOfFailingService, databaseHost, fixmeAssignee];
