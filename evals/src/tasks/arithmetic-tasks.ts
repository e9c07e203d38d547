import { numberAnswer } from '../grading/comparators.js';
import {
  callTool,
  finalAnswer,
  giveUp,
  grepMatches,
  type OraclePolicy,
  type OracleView,
  resultOf,
} from '../oracle/oracle-policy.js';
import { fileText, pathsUnder } from '../workspace/generate-workspace.js';
import { csvRecords } from '../workspace/read-text.js';
import type { Task } from './task.js';

const ORDERS = 'data/orders.csv';
const INVENTORY = 'data/inventory.csv';

/** Sums amounts written with two decimals, exactly (in cents). */
export function sumMoney(amounts: readonly string[]): string {
  const cents = amounts.reduce((total, amount) => total + Math.round(Number(amount) * 100), 0);
  return (cents / 100).toFixed(2);
}

/**
 * Finishes an arithmetic trajectory: sends `expression` to the calculator once, then answers with
 * what the calculator really returned, rounded to `decimals`.
 */
function viaCalculator(
  view: OracleView,
  expression: string | undefined,
  decimals: number,
  notes: readonly string[] = [],
): ReturnType<OraclePolicy> {
  if (expression === undefined || expression === '') return giveUp('nothing to add up');
  const computed = resultOf(view, 'calculator');
  if (!computed) return callTool('calculator', { expression }, notes);
  const value = Number(computed.text);
  if (computed.isError || !Number.isFinite(value))
    return giveUp(`calculator said ${computed.text}`);
  return finalAnswer(value.toFixed(decimals), notes);
}

function ordersPolicy(statuses: readonly string[], dropLast: boolean): OraclePolicy {
  return (view) => {
    const read = resultOf(view, 'read_file', { path: ORDERS });
    if (!read) return callTool('read_file', { path: ORDERS });
    const amounts = csvRecords(read.text)
      .filter((row) => row.region === 'north' && statuses.includes(row.status ?? ''))
      .map((row) => row.amount_eur ?? '0');
    return viaCalculator(view, (dropLast ? amounts.slice(0, -1) : amounts).join(' + '), 2);
  };
}

const northShipped: Task = {
  id: 'arithmetic-north-shipped-total',
  category: 'arithmetic',
  prompts: [
    `What is the total amount_eur of the orders in ${ORDERS} whose region is north and whose ` +
      'status is shipped? Give it with two decimals. End your reply with a line of the form `ANSWER: <amount>`.',
  ],
  expected: (workspace) =>
    sumMoney(
      csvRecords(fileText(workspace, ORDERS))
        .filter((row) => row.region === 'north' && row.status === 'shipped')
        .map((row) => row.amount_eur ?? '0'),
    ),
  comparator: numberAnswer(2),
  oracle: ordersPolicy(['shipped'], false),
  saboteurs: [
    {
      name: 'wrong filter (pending too)',
      expect: 'wrong',
      policy: ordersPolicy(['shipped', 'pending'], false),
    },
    { name: 'dropped the last row', expect: 'wrong', policy: ordersPolicy(['shipped'], true) },
  ],
};

/** A line of an API log that is a request to `/api/checkout` with a 5xx status. */
const CHECKOUT_5XX = / \/api\/checkout 5\d\d \d+ms/;

function checkoutPolicy(path: string, pattern: string): OraclePolicy {
  return (view) => {
    const found = resultOf(view, 'grep', { path });
    if (!found) return callTool('grep', { pattern, path });
    if (found.text.includes('[stopped after')) return giveUp('too many matches to count');
    return finalAnswer(String(grepMatches(found.text).length));
  };
}

const checkoutFailures: Task = {
  id: 'arithmetic-checkout-5xx-count',
  category: 'arithmetic',
  prompts: [
    'How many requests to the /api/checkout endpoint failed with an HTTP 5xx status, counted ' +
      'over all the log files in logs/? End your reply with a line of the form `ANSWER: <count>`.',
  ],
  expected: (workspace) =>
    String(
      pathsUnder(workspace, 'logs/')
        .flatMap((path) => fileText(workspace, path).split('\n'))
        .filter((line) => CHECKOUT_5XX.test(line)).length,
    ),
  comparator: numberAnswer(0),
  oracle: checkoutPolicy('logs', '/api/checkout 5\\d\\d \\d+ms'),
  saboteurs: [
    {
      name: 'one file only',
      expect: 'wrong',
      policy: checkoutPolicy('logs/api-2024-03-01.log', '/api/checkout 5\\d\\d \\d+ms'),
    },
    {
      name: 'the checkout service, not the endpoint',
      expect: 'wrong',
      policy: checkoutPolicy('logs', '\\[checkout\\] [A-Z]+ \\S+ 5\\d\\d \\d+ms'),
    },
  ],
};

function stockPolicy(warehouse: string, quantitiesOnly: boolean): OraclePolicy {
  return (view) => {
    const found = resultOf(view, 'grep', { path: INVENTORY });
    if (!found) return callTool('grep', { pattern: `,${warehouse},`, path: INVENTORY });
    const terms = grepMatches(found.text).map((match) => {
      const [, , , qty = '0', price = '0'] = match.text.split(',');
      return quantitiesOnly ? qty : `${qty} * ${price}`;
    });
    return viaCalculator(view, terms.join(' + '), 2, [`NOTE ${terms.length} rows in ${warehouse}`]);
  };
}

const stockValue: Task = {
  id: 'arithmetic-stock-value',
  category: 'arithmetic',
  prompts: [
    `What is the total stock value of the warehouse lyon in ${INVENTORY}, that is the sum of ` +
      'qty × unit_price_eur over its rows? Give it with two decimals. ' +
      'End your reply with a line of the form `ANSWER: <amount>`.',
  ],
  expected: (workspace) => {
    const cents = csvRecords(fileText(workspace, INVENTORY))
      .filter((row) => row.warehouse === 'lyon')
      .reduce(
        (total, row) => total + Number(row.qty) * Math.round(Number(row.unit_price_eur) * 100),
        0,
      );
    return (cents / 100).toFixed(2);
  },
  comparator: numberAnswer(2),
  oracle: stockPolicy('lyon', false),
  saboteurs: [
    { name: 'summed the quantities only', expect: 'wrong', policy: stockPolicy('lyon', true) },
    { name: 'wrong warehouse', expect: 'wrong', policy: stockPolicy('porto', false) },
  ],
};

/** Arithmetic over data: filter rows, then add or multiply exactly. */
export const ARITHMETIC_TASKS: readonly Task[] = [northShipped, checkoutFailures, stockValue];
