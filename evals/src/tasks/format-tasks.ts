import { exactAnswer, jsonAnswer } from '../grading/comparators.js';
import {
  callTool,
  finalAnswer,
  giveUp,
  grepMatches,
  type OraclePolicy,
  resultOf,
} from '../oracle/oracle-policy.js';
import { fileText } from '../workspace/generate-workspace.js';
import { csvRecords } from '../workspace/read-text.js';
import type { Task } from './task.js';

const SERVICES = 'config/services.json';
const INVENTORY = 'data/inventory.csv';
const MIN_REPLICAS = 3;

/** Names of the services with at least `MIN_REPLICAS` replicas, in file order. */
function replicated(text: string): string[] {
  const { services } = JSON.parse(text) as {
    services: { name: string; replicas: number }[];
  };
  return services.filter((service) => service.replicas >= MIN_REPLICAS).map((s) => s.name);
}

function replicasPolicy(render: (names: string[]) => string): OraclePolicy {
  return (view) => {
    const read = resultOf(view, 'read_file', { path: SERVICES });
    if (!read) return callTool('read_file', { path: SERVICES });
    try {
      return finalAnswer(render(replicated(read.text)));
    } catch {
      return giveUp(`${SERVICES} did not parse`);
    }
  };
}

const sorted = (names: string[]): string[] => [...names].sort();

const replicasList: Task = {
  id: 'format-replicated-services',
  category: 'format',
  prompts: [
    `List the services in ${SERVICES} that run ${MIN_REPLICAS} or more replicas, sorted ` +
      'alphabetically, as one comma-separated list without spaces. The answer line must be ' +
      'exactly `ANSWER: name1,name2,...` with nothing else on it.',
  ],
  expected: (workspace) => sorted(replicated(fileText(workspace, SERVICES))).join(','),
  comparator: exactAnswer(),
  oracle: replicasPolicy((names) => sorted(names).join(',')),
  saboteurs: [
    {
      name: 'spaces after the commas',
      expect: 'wrong',
      policy: replicasPolicy((names) => sorted(names).join(', ')),
    },
    {
      name: 'reverse order',
      expect: 'wrong',
      policy: replicasPolicy((names) => sorted(names).reverse().join(',')),
    },
  ],
};

interface StockRow {
  readonly sku: string;
  readonly qty: number;
}

/** The rows of warehouse oslo, from grep matches or CSV text. */
function osloRows(lines: readonly string[]): StockRow[] {
  return lines.flatMap((line) => {
    const [sku = '', , warehouse, qty] = line.split(',');
    return warehouse === 'oslo' ? [{ sku, qty: Number(qty) }] : [];
  });
}

function lowestPolicy(render: (row: StockRow) => string, rank = 0): OraclePolicy {
  return (view) => {
    const found = resultOf(view, 'grep', { path: INVENTORY });
    if (!found) return callTool('grep', { pattern: ',oslo,', path: INVENTORY });
    const rows = osloRows(grepMatches(found.text).map((match) => match.text)).sort(
      (a, b) => a.qty - b.qty,
    );
    const row = rows[rank];
    return row ? finalAnswer(render(row)) : giveUp('no rows for oslo');
  };
}

const asJson = (row: StockRow): string => JSON.stringify({ sku: row.sku, qty: row.qty });

const lowestStock: Task = {
  id: 'format-lowest-stock-json',
  category: 'format',
  prompts: [
    `Which item of the warehouse oslo in ${INVENTORY} has the lowest qty? The answer line must ` +
      'hold a JSON object and nothing else, exactly `ANSWER: {"sku": "<sku>", "qty": <qty as a number>}`.',
  ],
  expected: (workspace) => {
    const rows = csvRecords(fileText(workspace, INVENTORY))
      .filter((row) => row.warehouse === 'oslo')
      .map((row) => ({ sku: row.sku ?? '', qty: Number(row.qty) }))
      .sort((a, b) => a.qty - b.qty);
    if (!rows[0] || rows[0].qty === rows[1]?.qty) throw new Error('no unique lowest qty in oslo');
    return asJson(rows[0]);
  },
  comparator: jsonAnswer(),
  oracle: lowestPolicy(asJson),
  saboteurs: [
    {
      name: 'qty as a string',
      expect: 'wrong',
      policy: lowestPolicy((row) => JSON.stringify({ sku: row.sku, qty: String(row.qty) })),
    },
    {
      name: 'JSON in a code span',
      expect: 'wrong',
      policy: lowestPolicy((row) => `\`${asJson(row)}\``),
    },
  ],
};

/** Strict output format: the answer line is compared character for character or as typed JSON. */
export const FORMAT_TASKS: readonly Task[] = [replicasList, lowestStock];
