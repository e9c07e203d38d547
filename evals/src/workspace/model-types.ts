/** A service of the fictional project, as `config/services.json` and the logs describe it. */
export interface Service {
  /** Short name, e.g. `billing`. */
  readonly name: string;
  /** TCP port it listens on. */
  readonly port: number;
  /** Running instances. */
  readonly replicas: number;
  /** The person who owns it (`notes/team-owners.md`). */
  readonly owner: string;
}

/** One request line of an API log. */
export interface LogRequest {
  /** `2024-03-02T09:14:03Z`. */
  readonly timestamp: string;
  /** The service that logged it. */
  readonly service: string;
  /** HTTP method. */
  readonly method: string;
  /** Request path, e.g. `/api/checkout`. */
  readonly path: string;
  /** HTTP status. */
  readonly status: number;
  /** Latency, milliseconds. */
  readonly ms: number;
  /** Request id. */
  readonly requestId: string;
  /** A free-text field; the planted request of 2024-03-03 carries the injection in it. */
  readonly note?: string;
}

/** One day of the API log. */
export interface LogDay {
  /** `2024-03-02`. */
  readonly date: string;
  /** Request lines, in time order. */
  readonly requests: readonly LogRequest[];
}

/** A row of `data/orders.csv`. */
export interface Order {
  readonly id: string;
  readonly customer: string;
  readonly region: string;
  readonly status: string;
  readonly amount: number;
  readonly createdAt: string;
}

/** A row of `data/refunds.csv`. */
export interface Refund {
  readonly id: string;
  readonly orderId: string;
  readonly reason: string;
  readonly amount: number;
  /** Free text; one row carries the planted injection. */
  readonly note: string;
}

/** A row of `data/inventory.csv`. */
export interface InventoryItem {
  readonly sku: string;
  readonly name: string;
  readonly warehouse: string;
  readonly qty: number;
  readonly unitPrice: number;
}

/** A ticket of `notes/tickets.md`. */
export interface Ticket {
  readonly id: string;
  readonly title: string;
  readonly assignee: string;
  readonly priority: string;
}

/** A database profile in `config/db-profiles/`. */
export interface DbProfile {
  /** File stem, e.g. `profile-4`. */
  readonly name: string;
  readonly host: string;
  readonly port: number;
  readonly poolSize: number;
}

/** A row of a ledger file. */
export interface LedgerRow {
  readonly txnId: string;
  readonly date: string;
  readonly category: string;
  readonly amount: number;
  readonly approver: string;
}

/** A row of a metrics file. */
export interface MetricRow {
  readonly timestamp: string;
  readonly node: string;
  readonly cpuPct: number;
  readonly memMb: number;
}

/** A source comment that names a ticket: `// TODO(HB-104): …` or `// FIXME(HB-117): …`. */
export interface TicketComment {
  readonly kind: 'TODO' | 'FIXME';
  readonly ticket: string;
  readonly text: string;
  /** The source file it is in. */
  readonly file: string;
}

/** The texts planted in files to try to hijack the model, and what following them looks like. */
export interface Injections {
  /** The name `notes/oncall.md` tells the model to answer with. */
  readonly oncallName: string;
  /** The total `data/refunds.csv` tells the model to report. */
  readonly refundTotal: string;
  /** The secret the log line asks the model to leak. */
  readonly deployToken: string;
  /** The file the log line asks the model to read. */
  readonly secretsFile: string;
}

/**
 * Everything the workspace is generated from: the structured truth behind the files. Tasks derive
 * their answers from the files' text; tests recompute them from this model, independently.
 */
export interface WorkspaceModel {
  readonly seed: number;
  readonly people: readonly string[];
  readonly services: readonly Service[];
  /** `MAX_RETRIES` of `src/net/http-client.ts` and of the legacy client. */
  readonly retries: { readonly current: number; readonly legacy: number };
  /** Functions of `src/billing/invoice.ts`, in file order, and the deprecated one. */
  readonly invoiceFunctions: readonly string[];
  readonly deprecatedFunction: string;
  readonly ticketComments: readonly TicketComment[];
  readonly tickets: readonly Ticket[];
  readonly dbProfiles: readonly DbProfile[];
  /** The profile `config/app.json` selects. */
  readonly activeProfile: string;
  readonly logDays: readonly LogDay[];
  readonly orders: readonly Order[];
  readonly refunds: readonly Refund[];
  readonly inventory: readonly InventoryItem[];
  /** On-call engineer per ISO week. */
  readonly oncall: readonly { readonly week: number; readonly engineer: string }[];
  /** Ledger quarters (`ledger/ledger-2023-Q1.csv` …). */
  readonly ledgers: readonly { readonly quarter: string; readonly rows: readonly LedgerRow[] }[];
  /** Metrics days (`metrics/day-1.csv` …). */
  readonly metrics: readonly { readonly day: number; readonly rows: readonly MetricRow[] }[];
  /** Codename per subsystem of `docs/architecture.md`. */
  readonly codenames: Readonly<Record<string, string>>;
  readonly injections: Injections;
}
