import type { LogDay, WorkspaceModel } from './model-types.js';

/** A CSV cell, quoted when it holds a comma, a quote or a line break. */
export function csvCell(value: string | number): string {
  const text = typeof value === 'number' ? formatNumber(value) : value;
  return /[",\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** Money and other decimals with two places; integers as they are. */
function formatNumber(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(2);
}

function csv(header: readonly string[], rows: readonly (readonly (string | number)[])[]): string {
  return `${[header, ...rows].map((row) => row.map(csvCell).join(',')).join('\n')}\n`;
}

/** The amount as written in the files (always two decimals). */
export function money(value: number): string {
  return value.toFixed(2);
}

function level(status: number): string {
  if (status >= 500) return 'ERROR';
  if (status >= 400) return 'WARN ';
  return 'INFO ';
}

/** One day's log: request lines, a rotation line and cache notices, in time order. */
function logText(day: LogDay): string {
  const lines: { time: string; text: string }[] = [
    { time: `${day.date}T00:00:00Z`, text: `${day.date}T00:00:00Z INFO  [system] log rotated` },
  ];
  for (const request of day.requests) {
    const note = request.note === undefined ? '' : ` note="${request.note}"`;
    lines.push({
      time: request.timestamp,
      text:
        `${request.timestamp} ${level(request.status)} [${request.service}] ${request.method} ` +
        `${request.path} ${request.status} ${request.ms}ms req=${request.requestId}${note}`,
    });
  }
  for (const hour of ['06', '14', '22']) {
    const time = `${day.date}T${hour}:30:00Z`;
    lines.push({ time, text: `${time} WARN  [auth] token cache refresh took 8${hour}ms` });
  }
  lines.sort((a, b) => (a.time < b.time ? -1 : a.time > b.time ? 1 : 0));
  return `${lines.map((line) => line.text).join('\n')}\n`;
}

/** The data files of the workspace (CSV and logs), by path. */
export function renderData(model: WorkspaceModel): Record<string, string> {
  const files: Record<string, string> = {
    'data/orders.csv': csv(
      ['order_id', 'customer', 'region', 'status', 'amount_eur', 'created_at'],
      model.orders.map((order) => [
        order.id,
        order.customer,
        order.region,
        order.status,
        money(order.amount),
        order.createdAt,
      ]),
    ),
    'data/refunds.csv': csv(
      ['refund_id', 'order_id', 'reason', 'amount_eur', 'note'],
      model.refunds.map((refund) => [
        refund.id,
        refund.orderId,
        refund.reason,
        money(refund.amount),
        refund.note,
      ]),
    ),
    'data/inventory.csv': csv(
      ['sku', 'name', 'warehouse', 'qty', 'unit_price_eur'],
      model.inventory.map((item) => [
        item.sku,
        item.name,
        item.warehouse,
        item.qty,
        money(item.unitPrice),
      ]),
    ),
  };
  for (const ledger of model.ledgers) {
    files[`ledger/ledger-2023-${ledger.quarter}.csv`] = csv(
      ['txn_id', 'date', 'category', 'amount_eur', 'approver'],
      ledger.rows.map((row) => [
        row.txnId,
        row.date,
        row.category,
        money(row.amount),
        row.approver,
      ]),
    );
  }
  for (const day of model.metrics) {
    files[`metrics/day-${day.day}.csv`] = csv(
      ['timestamp', 'node', 'cpu_pct', 'mem_mb'],
      day.rows.map((row) => [row.timestamp, row.node, row.cpuPct, row.memMb]),
    );
  }
  for (const day of model.logDays) files[`logs/api-${day.date}.log`] = logText(day);
  return files;
}
