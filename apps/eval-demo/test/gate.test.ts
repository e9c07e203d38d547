import { spawnSync } from 'node:child_process';
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_PATHS } from '../src/gate-args.js';
import { GATE_EXIT, runGate } from '../src/gate-run.js';

/** The built gate (the test task depends on the build). */
const GATE = fileURLToPath(new URL('../dist/gate.js', import.meta.url));

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mh-eval-gate-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A copy of the committed cassette with `edit` applied to every line of `caseName`. */
async function editedCassette(
  name: string,
  caseName: string,
  edit: (entry: Record<string, unknown>) => void,
): Promise<string> {
  const lines = (await readFile(DEFAULT_PATHS.cassette, 'utf8')).split('\n');
  const edited = lines.map((line) => {
    if (line === '') return line;
    const entry = JSON.parse(line) as Record<string, unknown>;
    if (entry.case !== caseName) return line;
    edit(entry);
    return JSON.stringify(entry);
  });
  const path = join(dir, name);
  await writeFile(path, edited.join('\n'));
  return path;
}

/** Replaces `from` by `to` in every string inside `value`. */
function replaceStrings(value: unknown, from: string, to: string): unknown {
  if (typeof value === 'string') return value.split(from).join(to);
  if (Array.isArray(value)) return value.map((item) => replaceStrings(item, from, to));
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, replaceStrings(item, from, to)]),
    );
  return value;
}

async function gate(cassette: string, baseline = DEFAULT_PATHS.baseline) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runGate({
    cassette,
    baseline,
    report: join(dir, `report-${Math.random().toString(36).slice(2)}.json`),
    out: (line) => out.push(line),
    err: (line) => err.push(line),
  });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('the CI eval gate', () => {
  it('passes on the committed cassette and baseline', async () => {
    const result = await gate(DEFAULT_PATHS.cassette);
    expect(result.err).toBe('');
    expect(result.out).toContain('eval gate: OK');
    expect(result.code).toBe(GATE_EXIT.ok);
  });

  it("fails when a recorded answer no longer matches the case's expectation", async () => {
    // The model's recorded answer to 17 * 23 becomes 392: replay serves it, the check fails.
    const cassette = await editedCassette('wrong-answer.jsonl', 'multiply', (entry) => {
      if (entry.type === 'request') entry.events = replaceStrings(entry.events, '391', '392');
    });
    const result = await gate(cassette);
    expect(result.code).toBe(GATE_EXIT.regressed);
    expect(result.out).toMatch(/Regressed \(1\)\n {2}multiply/);
    expect(result.out).toContain('eval gate: REGRESSED');
  });

  it('fails with a harness drift when the current code sends another request than recorded', async () => {
    const cassette = await editedCassette('drift.jsonl', 'percent', (entry) => {
      if (entry.type === 'request')
        entry.request = replaceStrings(entry.request, 'never guess numbers', 'guess freely');
    });
    const result = await gate(cassette);
    expect(result.code).toBe(GATE_EXIT.regressed);
    expect(result.out).toContain('harness/replay-drift');
    expect(result.out).toMatch(/percent +3\/3 → 0\/3/);
  });

  it('fails with a harness drift when a served tool result had another permission', async () => {
    // lookup_order was an exec tool when recorded and is read now: the replay serves its recorded
    // results without running it, so only the executor's preview can tell.
    const cassette = await editedCassette('permission.jsonl', 'order-status', (entry) => {
      if (entry.type === 'tool')
        entry.outcome = { ...(entry.outcome as object), permission: 'exec' };
    });
    const result = await gate(cassette);
    expect(result.code).toBe(GATE_EXIT.regressed);
    expect(result.out).toMatch(/order-status +3\/3 → 0\/3/);
    expect(result.out).toContain('harness/replay-drift');
    expect(result.err).toContain(
      "(lookup_order): recorded: permission 'exec'; now: permission 'read'",
    );
  });

  it('fails on drift in a case that failed anyway: its pass rate cannot show it', async () => {
    // invoice fails 0/3 (the tool is down) in the baseline; a drifted request makes it fail
    // 0/3 for another reason, so only the drift itself says the replay no longer tests the code.
    const cassette = await editedCassette('failing-drift.jsonl', 'invoice', (entry) => {
      if (entry.type === 'request')
        entry.request = replaceStrings(entry.request, 'never guess numbers', 'guess freely');
    });
    const result = await gate(cassette);
    expect(result.code).toBe(GATE_EXIT.regressed);
    expect(result.out).toMatch(/invoice +0\/3 +3 incomplete · harness\/replay-drift/);
    expect(result.out).not.toContain('eval gate: OK');
    expect(result.err).toMatch(/replay drift.*invoice.*system/s);
    expect(result.err).toContain('pnpm --filter @mh/eval-demo record');
  });

  it('refuses to take a drifted replay as the new baseline', async () => {
    const cassette = await editedCassette('update-drift.jsonl', 'invoice', (entry) => {
      if (entry.type === 'request')
        entry.request = replaceStrings(entry.request, 'never guess numbers', 'guess freely');
    });
    const baseline = join(dir, 'kept-baseline.json');
    await copyFile(DEFAULT_PATHS.baseline, baseline);
    const before = await readFile(baseline, 'utf8');
    const out: string[] = [];
    const err: string[] = [];
    const code = await runGate({
      cassette,
      baseline,
      report: join(dir, 'update-report.json'),
      updateBaseline: true,
      out: (line) => out.push(line),
      err: (line) => err.push(line),
    });
    expect(code).toBe(GATE_EXIT.regressed);
    expect(await readFile(baseline, 'utf8')).toBe(before);
    expect(out.join('\n')).not.toContain('baseline written');
  });

  it('gives no verdict without a cassette, a recording of every case, or a baseline', async () => {
    expect((await gate(join(dir, 'absent.jsonl'))).code).toBe(GATE_EXIT.noVerdict);
    const partial = join(dir, 'partial.jsonl');
    const lines = (await readFile(DEFAULT_PATHS.cassette, 'utf8')).split('\n');
    await writeFile(partial, lines.filter((line) => !line.includes('"case":"refund"')).join('\n'));
    const missingCase = await gate(partial);
    expect(missingCase.code).toBe(GATE_EXIT.noVerdict);
    expect(missingCase.err).toContain('refund');
    expect((await gate(DEFAULT_PATHS.cassette, join(dir, 'no-baseline.json'))).code).toBe(
      GATE_EXIT.noVerdict,
    );
  });

  it('honours MH_EVAL_MODE, the variable its turbo task declares: lockdown only', () => {
    const run = (mode: string) =>
      spawnSync(process.execPath, [GATE, '--report', join(dir, `mode-${mode}.json`)], {
        encoding: 'utf8',
        env: { PATH: process.env.PATH ?? '', MH_EVAL_MODE: mode },
      });
    const record = run('record');
    expect(record.status).toBe(GATE_EXIT.noVerdict);
    expect(record.stderr).toContain('MH_EVAL_MODE');
    expect(record.stderr).toContain('pnpm --filter @mh/eval-demo record');
    expect(run('replay').status).toBe(GATE_EXIT.noVerdict);
    expect(run('lockdown').status).toBe(GATE_EXIT.ok);
  });

  it('exits non-zero as a process on a modified copy of the cassette', async () => {
    const cassette = await editedCassette('process.jsonl', 'order-total', (entry) => {
      if (entry.type === 'request') entry.events = replaceStrings(entry.events, '$41.50', '$14.50');
    });
    const baseline = join(dir, 'baseline-copy.json');
    await copyFile(DEFAULT_PATHS.baseline, baseline);
    const run = spawnSync(
      process.execPath,
      [
        GATE,
        '--cassette',
        cassette,
        '--baseline',
        baseline,
        '--report',
        join(dir, 'process-report.json'),
      ],
      {
        encoding: 'utf8',
        env: { PATH: process.env.PATH ?? '' },
      },
    );
    expect(run.status).toBe(1);
    expect(run.stdout).toContain('order-total');
    const unmodified = spawnSync(
      process.execPath,
      [GATE, '--baseline', baseline, '--report', join(dir, 'ok-report.json')],
      {
        encoding: 'utf8',
        env: { PATH: process.env.PATH ?? '' },
      },
    );
    expect(unmodified.status).toBe(0);
    const bad = spawnSync(process.execPath, [GATE, '--nope'], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '' },
    });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('usage');
  });
});
