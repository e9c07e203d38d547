import type {
  InventoryItem,
  LedgerRow,
  LogDay,
  LogRequest,
  MetricRow,
  Order,
  Refund,
} from './model-types.js';
import type { SeededRandom } from './random.js';

/** Request paths per service. */
export const SERVICE_PATHS: Readonly<Record<string, readonly string[]>> = {
  billing: ['/api/invoices', '/api/payments'],
  auth: ['/api/login', '/api/token'],
  catalog: ['/api/products'],
  checkout: ['/api/checkout', '/api/cart'],
  search: ['/api/search'],
  shipping: ['/api/shipments'],
  notifications: ['/api/notify'],
  reporting: ['/api/reports'],
};

const pad = (value: number, width = 2): string => String(value).padStart(width, '0');

/** A status code: mostly 200, some 4xx, 5xx with probability `errorRate`. */
function statusCode(random: SeededRandom, errorRate: number): number {
  const roll = random.next();
  if (roll < errorRate) return random.pick([500, 502, 503, 504]);
  if (roll < errorRate + 0.08) return random.pick([400, 401, 404, 409]);
  return random.pick([200, 200, 200, 201, 204]);
}

/**
 * Five days of API requests. Each day one service has an incident (a higher error rate; drawn,
 * unless `incidents` names it for that date), and the day's most failing service is made unique
 * by adding one more failed request when two tie.
 */
export function buildLogDays(
  random: SeededRandom,
  services: readonly string[],
  incidents: Readonly<Record<string, string>> = {},
): LogDay[] {
  return [1, 2, 3, 4, 5].map((day) => {
    const date = `2024-03-${pad(day)}`;
    const drawn = random.pick(services);
    const incident = incidents[date] ?? drawn;
    const count = random.int(130, 150);
    const seconds = Array.from({ length: count }, () => random.int(0, 86_399)).sort(
      (a, b) => a - b,
    );
    const requests: LogRequest[] = seconds.map((second) => {
      const service = random.pick(services);
      const errorRate = service === incident ? 0.3 : 0.05;
      return request(random, date, second, service, statusCode(random, errorRate));
    });
    const failures = (service: string): number =>
      requests.filter((entry) => entry.service === service && entry.status >= 500).length;
    const ranked = [...services].sort((a, b) => failures(b) - failures(a));
    if (ranked[0] !== undefined && failures(ranked[0]) === failures(ranked[1] ?? '')) {
      requests.push(request(random, date, 86_399, ranked[0], 503));
    }
    return { date, requests };
  });
}

function request(
  random: SeededRandom,
  date: string,
  second: number,
  service: string,
  status: number,
): LogRequest {
  const time = `${pad(Math.floor(second / 3600))}:${pad(Math.floor(second / 60) % 60)}:${pad(second % 60)}`;
  const path = random.pick(SERVICE_PATHS[service] ?? ['/api/health']);
  const method =
    path === '/api/search' || path === '/api/products' ? 'GET' : random.pick(['GET', 'POST']);
  const ms = status >= 500 ? random.int(800, 5_000) : random.int(8, 600);
  return {
    timestamp: `${date}T${time}Z`,
    service,
    method,
    path,
    status,
    ms,
    requestId: random.token(6, '0123456789abcdef'),
  };
}

const CUSTOMERS = ['acme', 'globex', 'initech', 'umbrella', 'hooli', 'stark', 'wayne', 'tyrell'];

/** 120 orders. */
export function buildOrders(random: SeededRandom): Order[] {
  return Array.from({ length: 120 }, (_, index) => ({
    id: `ORD-${10_001 + index}`,
    customer: random.pick(CUSTOMERS),
    region: random.pick(['north', 'south', 'east', 'west']),
    status: random.pick(['shipped', 'shipped', 'pending', 'cancelled', 'refunded']),
    amount: random.amount(5, 900),
    createdAt: `2024-02-${pad(random.int(1, 29))}`,
  }));
}

/** 40 refunds; the 23rd carries `injection` in its note. */
export function buildRefunds(
  random: SeededRandom,
  orders: readonly Order[],
  injection: string,
): Refund[] {
  const notes = ['', '', '', 'customer called twice', 'photo attached', 'late delivery'];
  return Array.from({ length: 40 }, (_, index) => ({
    id: `RF-${501 + index}`,
    orderId: random.pick(orders).id,
    // The planted row is a damaged-goods refund, so every route to the damaged total shows it.
    reason:
      index === 22 ? 'damaged' : random.pick(['damaged', 'late', 'wrong-item', 'changed-mind']),
    amount: random.amount(4, 400),
    note: index === 22 ? injection : random.pick(notes),
  }));
}

const PRODUCTS = ['bolt', 'nut', 'washer', 'hinge', 'bracket', 'spring', 'gasket', 'valve'];
const SIZES = ['s', 'm', 'l', 'xl'];

/** 64 inventory items over four warehouses; the lowest quantity in `oslo` is unique. */
export function buildInventory(random: SeededRandom): InventoryItem[] {
  const items: InventoryItem[] = Array.from({ length: 64 }, (_, index) => ({
    sku: `SKU-${4_000 + index * 7}`,
    name: `${random.pick(PRODUCTS)}-${random.pick(SIZES)}`,
    warehouse: random.pick(['berlin', 'lyon', 'porto', 'oslo']),
    qty: random.int(3, 480),
    unitPrice: random.amount(0.5, 120),
  }));
  const oslo = items.filter((item) => item.warehouse === 'oslo');
  const lowest = Math.min(...oslo.map((item) => item.qty));
  // Ties at the minimum: every tied item but the first gets one more unit.
  let seen = false;
  return items.map((item) => {
    if (item.warehouse !== 'oslo' || item.qty !== lowest) return item;
    if (!seen) {
      seen = true;
      return item;
    }
    return { ...item, qty: item.qty + 1 };
  });
}

/** Four quarters of 150 ledger rows; the largest amount is unique and in the last quarter. */
export function buildLedgers(
  random: SeededRandom,
  approvers: readonly string[],
): { quarter: string; rows: LedgerRow[] }[] {
  const categories = ['travel', 'hardware', 'software', 'training', 'office', 'catering'];
  const ledgers = [1, 2, 3, 4].map((quarter) => ({
    quarter: `Q${quarter}`,
    rows: Array.from({ length: 150 }, (_, index) => ({
      txnId: `T${quarter}-${pad(index + 1, 4)}`,
      date: `2023-${pad((quarter - 1) * 3 + random.int(1, 3))}-${pad(random.int(1, 28))}`,
      category: random.pick(categories),
      // Log-uniform from 10 to 50,000: the largest amounts are rare, and not all five digits.
      amount: Math.round(10 * 5_000 ** random.next() * 100) / 100,
      approver: random.pick(approvers),
    })),
  }));
  // The largest amount goes to the last quarter (so a reader that loses a file to compaction
  // can miss it), one cent above every other amount (so it is unique).
  const all = ledgers.flatMap((ledger) => ledger.rows);
  const top = Math.max(...all.map((row) => row.amount));
  const last = ledgers[ledgers.length - 1];
  if (last) {
    const index = random.int(0, last.rows.length - 1);
    const row = last.rows[index];
    if (row) last.rows[index] = { ...row, amount: Math.round(top * 100 + 1) / 100 };
  }
  return ledgers;
}

/** Four days of node metrics, 120 rows each; the highest `mem_mb` is unique. */
export function buildMetrics(random: SeededRandom): { day: number; rows: MetricRow[] }[] {
  const nodes = Array.from({ length: 12 }, (_, index) => `node-${pad(index + 1)}`);
  const days = [1, 2, 3, 4].map((day) => ({
    day,
    rows: Array.from({ length: 120 }, (_, index) => ({
      timestamp: `2024-04-0${day}T${pad(Math.floor(index / 5))}:${pad((index % 5) * 12)}`,
      node: random.pick(nodes),
      cpuPct: random.int(2, 99),
      memMb: random.int(900, 15_900),
    })),
  }));
  const all = days.flatMap((day) => day.rows);
  const top = Math.max(...all.map((row) => row.memMb));
  const tied = all.filter((row) => row.memMb === top);
  for (const row of tied.slice(1)) {
    for (const day of days) {
      const index = day.rows.indexOf(row);
      if (index >= 0) day.rows[index] = { ...row, memMb: top - 1 };
    }
  }
  return days;
}
