import type { TicketComment, WorkspaceModel } from './model-types.js';

/** The comment lines of `comments` that belong in `file`. */
function commentsIn(comments: readonly TicketComment[], file: string): string[] {
  return comments
    .filter((comment) => comment.file === file)
    .map((comment) => `  // ${comment.kind}(${comment.ticket}): ${comment.text}`);
}

function httpClient(model: WorkspaceModel): string {
  const file = 'src/net/http-client.ts';
  return [
    '// The HTTP client every service uses to call its neighbours.',
    "import { setTimeout as sleep } from 'node:timers/promises';",
    '',
    '/** Attempts after the first failure before a request gives up. */',
    `export const MAX_RETRIES = ${model.retries.current};`,
    '/** Base delay between attempts, milliseconds (doubled on each attempt). */',
    'export const RETRY_BACKOFF_MS = 250;',
    '',
    'export async function request(url: string, init: RequestInit = {}): Promise<Response> {',
    ...commentsIn(model.ticketComments, file),
    '  let attempt = 0;',
    '  for (;;) {',
    '    const response = await fetch(url, init);',
    '    if (response.status < 500 || attempt === MAX_RETRIES) return response;',
    '    await sleep(RETRY_BACKOFF_MS * 2 ** attempt);',
    '    attempt += 1;',
    '  }',
    '}',
    '',
  ].join('\n');
}

function httpClientTest(): string {
  return [
    "import { expect, it } from 'vitest';",
    "import { MAX_RETRIES, request } from './http-client.js';",
    '',
    "it('gives up after the last retry', async () => {",
    '  const calls = await countCalls(() => request("http://down.test"));',
    '  // The first attempt plus every retry.',
    '  expect(calls).toBe(MAX_RETRIES + 1);',
    '});',
    '',
  ].join('\n');
}

function legacyClient(model: WorkspaceModel): string {
  return [
    '// v1 of the HTTP client, kept for the reporting export until release 2.0. Do not use.',
    `export const MAX_RETRIES = ${model.retries.legacy};`,
    '',
    'export function legacyRequest(url: string): Promise<Response> {',
    '  return fetch(url);',
    '}',
    '',
  ].join('\n');
}

function invoice(model: WorkspaceModel): string {
  const file = 'src/billing/invoice.ts';
  const lines = ['// Invoice formatting and totals.', ''];
  model.invoiceFunctions.forEach((name, index) => {
    if (name === model.deprecatedFunction) {
      lines.push(
        '/**',
        ` * ${describe(name)}`,
        ' * @deprecated Kept for the v1 API; new code must not call it.',
        ' */',
      );
    } else {
      lines.push(`/** ${describe(name)} */`);
    }
    lines.push(`export function ${name}(invoice: Invoice): string {`);
    if (index === 2) lines.push(...commentsIn(model.ticketComments, file));
    lines.push(`  return String(invoice.total * ${index + 1});`, '}', '');
  });
  return lines.join('\n');
}

const DESCRIPTIONS: Readonly<Record<string, string>> = {
  formatInvoice: 'Formats an invoice as plain text.',
  formatInvoiceV2: 'Formats an invoice as plain text, with line numbers.',
  computeTax: 'Computes the tax of an invoice.',
  applyDiscount: 'Applies the customer discount to an invoice.',
  roundTotal: 'Rounds the total of an invoice to cents.',
  invoiceNumber: 'Builds the number printed on an invoice.',
  dueDate: 'Computes the due date of an invoice.',
  renderLineItems: 'Renders the line items of an invoice.',
};

function describe(name: string): string {
  return DESCRIPTIONS[name] ?? 'Part of invoice formatting.';
}

function filler(
  model: WorkspaceModel,
  file: string,
  title: string,
  body: readonly string[],
): string {
  return [
    `// ${title}`,
    '',
    'export function main(input: readonly string[]): string[] {',
    ...commentsIn(model.ticketComments, file),
    ...body.map((line) => `  ${line}`),
    '}',
    '',
  ].join('\n');
}

/** The source files of the workspace, by path. */
export function renderSource(model: WorkspaceModel): Record<string, string> {
  return {
    'src/net/http-client.ts': httpClient(model),
    'src/net/http-client.test.ts': httpClientTest(),
    'src/legacy/http-client-v1.ts': legacyClient(model),
    'src/billing/invoice.ts': invoice(model),
    'src/catalog/search.ts': filler(model, 'src/catalog/search.ts', 'Product search.', [
      'return input.filter((term) => term.length > 2).map((term) => term.toLowerCase());',
    ]),
    'src/shipping/rates.ts': filler(model, 'src/shipping/rates.ts', 'Shipping rates.', [
      'const base = 4.9;',
      'return input.map((weight) => (base + Number(weight) * 0.8).toFixed(2));',
    ]),
    'src/auth/session.ts': filler(model, 'src/auth/session.ts', 'Sessions and tokens.', [
      'const ttlMinutes = 30;',
      "return input.map((user) => user + ':' + ttlMinutes);",
    ]),
    'src/index.ts': [
      "export * from './net/http-client.js';",
      "export * from './billing/invoice.js';",
      '',
    ].join('\n'),
  };
}
