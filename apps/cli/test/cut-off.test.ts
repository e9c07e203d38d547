import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { Agent, scripted } from '@mh/sdk';
import { describe, expect, it } from 'vitest';
import { worseExitCode } from '../src/event-renderer.js';
import { Repl } from '../src/repl.js';
import { runCli } from './run-cli.js';

const PROMPT = 'Tell me about cats';
const CUT_OFF = 4;

/**
 * A cassette of one fake answer whose model call stopped at the output limit: recorded with the
 * fake model (which always finishes), then its stop reason rewritten as a real model's would be.
 */
async function cutOffCassette(extra: readonly string[] = []): Promise<string> {
  const cassette = join(mkdtempSync(join(tmpdir(), 'mh-cut-')), 'run.jsonl');
  const recorded = await runCli(['--fake', '--record', cassette, ...extra, PROMPT]);
  expect(recorded.code).toBe(0);
  const text = readFileSync(cassette, 'utf8');
  expect(text).toContain('"stopReason":"end"');
  writeFileSync(cassette, text.replace('"stopReason":"end"', '"stopReason":"max-tokens"'));
  return cassette;
}

function buffer(): { stream: PassThrough; text: () => string } {
  const stream = new PassThrough();
  let text = '';
  stream.setEncoding('utf8').on('data', (chunk: string) => {
    text += chunk;
  });
  return { stream, text: () => text };
}

describe('an answer cut off at the output limit', { timeout: 60_000 }, () => {
  it('is printed, then named on stderr, and a one-shot exits 4', async () => {
    const run = await runCli(['--replay', await cutOffCassette(), PROMPT]);
    expect(run.stdout).toContain(`You said: "${PROMPT}"`);
    expect(run.stderr).toContain(
      "mh: the answer was cut off at the model's output limit (the provider's default); it is incomplete. Raise the limit with --max-output-tokens N, or ask for a shorter answer\n",
    );
    expect(run.code).toBe(CUT_OFF);
  });

  it('names the --max-output-tokens it was asked under, which the request carries', async () => {
    const cassette = await cutOffCassette(['--max-output-tokens', '50']);
    expect(readFileSync(cassette, 'utf8')).toContain('"maxOutputTokens":50');
    const run = await runCli(['--replay', cassette, '--max-output-tokens', '50', PROMPT]);
    expect(run.stderr).toContain(
      'mh: the answer was cut off at the output limit (--max-output-tokens 50); it is incomplete.',
    );
    expect(run.stderr).toContain('no drift');
    expect(run.code).toBe(CUT_OFF);
  });

  it('makes a piped REPL exit 4 when no line did worse', async () => {
    const run = await runCli(['--replay', await cutOffCassette()], `${PROMPT}\n`);
    expect(run.stderr).toContain('mh: the answer was cut off');
    expect(run.code).toBe(CUT_OFF);
  });

  it('is told apart from a complete answer by Repl', async () => {
    const out = buffer();
    const err = buffer();
    const agent = new Agent({
      provider: scripted([
        { text: 'The first half of', stopReason: 'max-tokens' },
        { text: 'All of it.' },
      ]),
      model: 'scripted',
    });
    const repl = new Repl(agent, { out: out.stream, err: err.stream, color: false }, () => {});
    expect(await repl.ask('Tell me everything')).toBe(CUT_OFF);
    expect(out.text()).toBe('The first half of\n');
    expect(err.text()).toContain('mh: the answer was cut off');
    expect(await repl.ask('Again, shorter')).toBe(0);
    expect(err.text().match(/cut off/g)).toHaveLength(1);
  });

  it('counts as less bad than a failure or a refused line in a piped REPL', () => {
    expect(worseExitCode(0, CUT_OFF)).toBe(CUT_OFF);
    expect(worseExitCode(CUT_OFF, 1)).toBe(1);
    expect(worseExitCode(2, CUT_OFF)).toBe(2);
    expect(worseExitCode(1, 2)).toBe(2);
  });

  it('refuses a --max-output-tokens that is not a positive integer', async () => {
    const run = await runCli(['--fake', '--max-output-tokens', '0', 'hi']);
    expect([run.code, run.stderr.trim()]).toEqual([
      2,
      "mh: --max-output-tokens expects a positive integer, got '0'",
    ]);
  });
});
