import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoTools, ORDERS } from '../src/demo-tools.js';
import { DEFAULT_PATHS } from '../src/gate-args.js';
import { GATE_EXIT, runGate } from '../src/gate-run.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mh-eval-gate-tools-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The regression of issue 17: `lookup_order` reports the item count as the total. */
function countAsTotal(id: string): string {
  const order = ORDERS[id];
  if (!order) throw new Error(`no order ${id}`);
  return `${id}: status ${order.status}, ${order.items} item(s), total ${order.items}, customer ${order.customer}`;
}

async function gate(
  tools?: Parameters<typeof runGate>[0]['tools'],
  maxTurns?: Parameters<typeof runGate>[0]['maxTurns'],
) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runGate({
    cassette: DEFAULT_PATHS.cassette,
    baseline: DEFAULT_PATHS.baseline,
    report: join(dir, `report-${Math.random().toString(36).slice(2)}.json`),
    tools,
    maxTurns,
    out: (line) => out.push(line),
    err: (line) => err.push(line),
  });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('the CI eval gate and the tools', () => {
  it('replays the committed cassettes with the real tools and finds no drift', async () => {
    const result = await gate((version) => demoTools(version));
    expect(result.err).toBe('');
    expect(result.code).toBe(GATE_EXIT.ok);
  });

  it('fails when lookup_order reports the item count as the total, at toolCalls.<id>.result', async () => {
    const result = await gate((version) => demoTools(version, { describeOrder: countAsTotal }));
    expect(result.code).toBe(GATE_EXIT.regressed);
    expect(result.out).toContain('eval gate: REGRESSED');
    expect(result.err).toMatch(/toolCalls\.[\w-]+\.result|\(lookup_order\) ran live/);
    expect(result.err).toContain('(lookup_order) ran live and returned another result');
    expect(result.err).toMatch(/recorded ".*total \$41\.50.*", now ".*total 3.*"/);
  });

  it('ends each run that a lower maxTurns stops early with the replay drift, not a guard', async () => {
    const result = await gate(undefined, 1);
    expect(result.code).toBe(GATE_EXIT.regressed);
    expect(result.out).toMatch(/multiply +0\/3 +3 incomplete · harness\/replay-drift/);
    expect(result.out).not.toContain('max-turns');
    expect(result.err).toContain('the run stopped (guard max-turns) with 1 recorded request(s)');
  });
});
