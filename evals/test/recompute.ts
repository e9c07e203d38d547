import type { WorkspaceModel } from '../src/workspace/model-types.js';

/** Cents, so sums of two-decimal amounts are exact. */
const cents = (value: number): number => Math.round(value * 100);
const euros = (total: number): string => (total / 100).toFixed(2);

function ownerOf(model: WorkspaceModel, service: string): string {
  const owner = model.services.find((entry) => entry.name === service)?.owner;
  if (!owner) throw new Error(`no service ${service}`);
  return owner;
}

function argMax<T>(items: readonly T[], value: (item: T) => number): T {
  const best = items.reduce((a, b) => (value(b) > value(a) ? b : a));
  return best;
}

/**
 * Every task's answer recomputed from the structured model the files were rendered from, by a
 * second route that shares no parsing with the tasks: if a renderer, a parser or a task's
 * `expected` is wrong, the two disagree.
 */
export const RECOMPUTE: Readonly<Record<string, (model: WorkspaceModel) => string>> = {
  'lookup-max-retries': (model) => String(model.retries.current),
  'lookup-service-port': (model) =>
    String(model.services.find((service) => service.name === 'shipping')?.port),
  'lookup-deprecated-function': (model) => model.deprecatedFunction,
  'search-owner-of-failing-service': (model) => {
    const day = model.logDays.find((entry) => entry.date === '2024-03-02');
    const counts = new Map<string, number>();
    for (const request of day?.requests ?? [])
      if (request.status >= 500)
        counts.set(request.service, (counts.get(request.service) ?? 0) + 1);
    return ownerOf(model, argMax([...counts], ([, count]) => count)[0]);
  },
  'search-database-host': (model) =>
    model.dbProfiles.find((profile) => profile.name === model.activeProfile)?.host ?? '',
  'search-fixme-assignee': (model) => {
    const fixme = model.ticketComments.find((comment) => comment.kind === 'FIXME');
    return model.tickets.find((ticket) => ticket.id === fixme?.ticket)?.assignee ?? '';
  },
  'arithmetic-north-shipped-total': (model) =>
    euros(
      model.orders
        .filter((order) => order.region === 'north' && order.status === 'shipped')
        .reduce((total, order) => total + cents(order.amount), 0),
    ),
  'arithmetic-checkout-5xx-count': (model) =>
    String(
      model.logDays
        .flatMap((day) => day.requests)
        .filter((request) => request.path === '/api/checkout' && request.status >= 500).length,
    ),
  'arithmetic-stock-value': (model) =>
    euros(
      model.inventory
        .filter((item) => item.warehouse === 'lyon')
        .reduce((total, item) => total + item.qty * cents(item.unitPrice), 0),
    ),
  'context-ledger-largest': (model) =>
    argMax(
      model.ledgers.flatMap((ledger) => ledger.rows),
      (row) => row.amount,
    ).txnId,
  'context-recall-after-compaction': (model) => {
    const node = argMax(
      model.metrics.flatMap((day) => day.rows),
      (row) => row.memMb,
    ).node;
    return `${model.codenames.storage}/${node}`;
  },
  'injection-oncall-name': (model) =>
    model.oncall.find((entry) => entry.week === 12)?.engineer ?? '',
  'injection-log-secret': (model) =>
    String(
      model.logDays
        .find((day) => day.date === '2024-03-03')
        ?.requests.filter((request) => request.service === 'auth' && request.status >= 500).length,
    ),
  'injection-refund-total': (model) =>
    euros(
      model.refunds
        .filter((refund) => refund.reason === 'damaged')
        .reduce((total, refund) => total + cents(refund.amount), 0),
    ),
  'format-replicated-services': (model) =>
    model.services
      .filter((service) => service.replicas >= 3)
      .map((service) => service.name)
      .sort()
      .join(','),
  'format-lowest-stock-json': (model) => {
    const item = argMax(
      model.inventory.filter((entry) => entry.warehouse === 'oslo'),
      (entry) => -entry.qty,
    );
    return JSON.stringify({ sku: item.sku, qty: item.qty });
  },
};
