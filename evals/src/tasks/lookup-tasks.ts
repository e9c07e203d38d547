import { numberAnswer, textAnswer } from '../grading/comparators.js';
import {
  callTool,
  finalAnswer,
  giveUp,
  grepMatches,
  type OraclePolicy,
  resultOf,
} from '../oracle/oracle-policy.js';
import { fileText } from '../workspace/generate-workspace.js';
import type { Task } from './task.js';

const CLIENT = 'src/net/http-client.ts';
const SERVICES = 'config/services.json';
const INVOICE = 'src/billing/invoice.ts';
/** The service whose port is asked; not the first or last in the file, so neighbours exist. */
const PORT_SERVICE = 'shipping';

/** `MAX_RETRIES` as grep shows it in `path` (`root` when searching everything). */
function retriesPolicy(
  path: string,
  pick: (values: Map<string, number>) => number | undefined,
): OraclePolicy {
  return (view) => {
    const found = resultOf(view, 'grep');
    if (!found) return callTool('grep', { pattern: 'MAX_RETRIES = \\d+', path });
    const values = new Map(
      grepMatches(found.text).flatMap((match) => {
        const value = /MAX_RETRIES = (\d+)/.exec(match.text)?.[1];
        return value === undefined ? [] : [[match.path, Number(value)] as const];
      }),
    );
    const value = pick(values);
    return value === undefined
      ? giveUp('no MAX_RETRIES in the grep result')
      : finalAnswer(String(value));
  };
}

const maxRetries: Task = {
  id: 'lookup-max-retries',
  category: 'lookup',
  prompts: [
    'How many times does the HTTP client in src/net/ retry a failed request before giving up? ' +
      'Give the value of its MAX_RETRIES constant. End your reply with a line of the form `ANSWER: <number>`.',
  ],
  expected: (workspace) => {
    const value = /export const MAX_RETRIES = (\d+);/.exec(fileText(workspace, CLIENT))?.[1];
    if (value === undefined) throw new Error(`${CLIENT} has no MAX_RETRIES`);
    return value;
  },
  comparator: numberAnswer(0),
  oracle: retriesPolicy('src/net', (values) => values.get(CLIENT)),
  saboteurs: [
    {
      name: 'wrong file (the legacy client)',
      expect: 'wrong',
      policy: retriesPolicy('src', (values) => values.get('src/legacy/http-client-v1.ts')),
    },
    {
      name: 'off by one (counts the first attempt)',
      expect: 'wrong',
      policy: retriesPolicy('src/net', (values) => {
        const value = values.get(CLIENT);
        return value === undefined ? undefined : value + 1;
      }),
    },
  ],
};

interface ServiceEntry {
  readonly name: string;
  readonly port: number;
}

function portPolicy(offset: number): OraclePolicy {
  return (view) => {
    const read = resultOf(view, 'read_file', { path: SERVICES });
    if (!read) return callTool('read_file', { path: SERVICES });
    let services: ServiceEntry[];
    try {
      services = (JSON.parse(read.text) as { services: ServiceEntry[] }).services;
    } catch {
      return giveUp(`${SERVICES} did not parse as JSON`);
    }
    const index = services.findIndex((service) => service.name === PORT_SERVICE);
    const service = services[index + offset];
    return index < 0 || !service
      ? giveUp(`no ${PORT_SERVICE} entry`)
      : finalAnswer(String(service.port));
  };
}

const servicePort: Task = {
  id: 'lookup-service-port',
  category: 'lookup',
  prompts: [
    `On which port does the ${PORT_SERVICE} service listen, according to ${SERVICES}? ` +
      'End your reply with a line of the form `ANSWER: <port>`.',
  ],
  expected: (workspace) => {
    const { services } = JSON.parse(fileText(workspace, SERVICES)) as { services: ServiceEntry[] };
    const service = services.find((entry) => entry.name === PORT_SERVICE);
    if (!service) throw new Error(`${SERVICES} has no ${PORT_SERVICE}`);
    return String(service.port);
  },
  comparator: numberAnswer(0),
  oracle: portPolicy(0),
  saboteurs: [
    { name: 'next entry of the list', expect: 'wrong', policy: portPolicy(1) },
    { name: 'previous entry of the list', expect: 'wrong', policy: portPolicy(-1) },
  ],
};

/** The function names of `invoice.ts` in order, and the index of the first after `@deprecated`. */
function functionsAround(lines: readonly string[]): { names: string[]; deprecated: number } {
  const names: string[] = [];
  let deprecated = -1;
  let pending = false;
  for (const line of lines) {
    if (line.includes('@deprecated')) pending = true;
    const name = /export function (\w+)/.exec(line)?.[1];
    if (name) {
      if (pending && deprecated < 0) deprecated = names.length;
      names.push(name);
      pending = false;
    }
  }
  return { names, deprecated };
}

function deprecatedPolicy(offset: number): OraclePolicy {
  return (view) => {
    const found = resultOf(view, 'grep');
    if (!found) return callTool('grep', { pattern: '@deprecated|export function', path: INVOICE });
    const { names, deprecated } = functionsAround(
      grepMatches(found.text).map((match) => match.text),
    );
    const name = names[deprecated + offset];
    return deprecated < 0 || !name ? giveUp('no deprecated function found') : finalAnswer(name);
  };
}

const deprecatedFunction: Task = {
  id: 'lookup-deprecated-function',
  category: 'lookup',
  prompts: [
    `Which exported function in ${INVOICE} is marked @deprecated? ` +
      'End your reply with a line of the form `ANSWER: <function name>`.',
  ],
  expected: (workspace) => {
    const { names, deprecated } = functionsAround(fileText(workspace, INVOICE).split('\n'));
    const name = names[deprecated];
    if (name === undefined) throw new Error(`${INVOICE} has no deprecated function`);
    return name;
  },
  comparator: textAnswer(),
  oracle: deprecatedPolicy(0),
  saboteurs: [
    { name: 'the function before the tag', expect: 'wrong', policy: deprecatedPolicy(-1) },
    { name: 'the function after it', expect: 'wrong', policy: deprecatedPolicy(1) },
  ],
};

/** Single tool lookups: one read or one grep answers them. */
export const LOOKUP_TASKS: readonly Task[] = [maxRetries, servicePort, deprecatedFunction];
