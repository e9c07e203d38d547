import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { MAIN } from './run-cli.js';

// Cold start: a flag's dependencies load only when the flag is given (issue 16, target 4).
// Which modules a process loaded, not how long it took: speed lives in `pnpm bench`.

const RECORDER = fileURLToPath(new URL('./support/record-loads.mjs', import.meta.url));
const FAKE_MCP_SERVER = fileURLToPath(
  new URL('../../../packages/mcp/test/servers/fake-server.mjs', import.meta.url),
);

/** What a flag may pull in; none of it is needed to answer one prompt offline (nor is zod). */
const HEAVY = [
  '@anthropic-ai/sdk',
  '@dbos-inc/dbos-sdk',
  '@mh/durable-dbos',
  '@modelcontextprotocol/client',
  '@mh/eval',
  '@mh/mcp',
  '@mh/observability',
  '@mh/session-sql',
  '@opentelemetry/api',
  '@opentelemetry/sdk-trace-base',
  'ajv',
  'better-sqlite3',
  'kysely',
  'openai',
  'pg',
];

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'mh-lazy-'));
  dirs.push(dir);
  return dir;
}

/** The package a loaded file belongs to: the last `node_modules` segment, or a workspace folder. */
function packageOf(location: string): string | undefined {
  const path = location.replace(/^file:\/\//, '');
  const vendored = path.split('/node_modules/').at(-1);
  if (vendored !== undefined && vendored !== path) {
    const [scope = '', name = ''] = vendored.split('/');
    return scope.startsWith('@') ? `${scope}/${name}` : scope;
  }
  const workspace = /\/packages\/([^/]+)\//.exec(path);
  return workspace ? `@mh/${workspace[1]}` : undefined;
}

/** Runs `mh args` with the loader recorder; returns how it ended and the packages it loaded. */
function runRecorded(args: readonly string[]): {
  code: number | null;
  stdout: string;
  stderr: string;
  loaded: Set<string>;
  providerEntries: Set<string>;
} {
  const list = join(tempDir(), 'loaded.txt');
  const run = spawnSync(process.execPath, ['--import', RECORDER, MAIN, ...args], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      NO_COLOR: '1',
      MH_LOADED_MODULES: list,
    },
    encoding: 'utf8',
    input: '',
    timeout: 30_000,
  });
  const lines = readFileSync(list, 'utf8').split('\n').filter(Boolean);
  const loaded = new Set(lines.map(packageOf).filter((name) => name !== undefined));
  // The vendor entries of @mh/providers (`@mh/providers/anthropic`, `/openai`).
  const providerEntries = new Set(
    lines.flatMap((line) => /\/packages\/providers\/dist\/(anthropic|openai)\//.exec(line) ?? []),
  );
  return { code: run.status, stdout: run.stdout, stderr: run.stderr, loaded, providerEntries };
}

describe('mh loads what a flag needs only when the flag is given', { timeout: 60_000 }, () => {
  it('answers What is 6*7? with --fake without loading any flag-only dependency', () => {
    const run = runRecorded(['--fake', 'What is 6*7?']);
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toBe('The answer is 42.');
    // The recorder saw the modules that do the work, so an empty list below means something.
    expect(run.loaded).toContain('@mh/sdk');
    expect(run.loaded).toContain('@mh/tools');
    expect(HEAVY.filter((name) => run.loaded.has(name))).toEqual([]);
    // zod alone took 70-100 ms of a 0.3 s start: the built-in tools are plain JSON Schemas and
    // the SDK imports `@mh/tools/zod-free`, so nothing the fake path runs needs it.
    expect(run.loaded).not.toContain('zod');
    expect([...run.providerEntries]).toEqual([]);
  });

  it('prints --help and --version without loading the SDK', () => {
    for (const flag of ['--help', '--version']) {
      const run = runRecorded([flag]);
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(/^(usage|mh )/im);
      expect([...run.loaded].filter((name) => name !== '@mh/cli')).toEqual([]);
    }
  });

  it('loads OpenTelemetry for --trace', () => {
    const run = runRecorded(['--fake', '--trace', 'What is 6*7?']);
    expect(run.code).toBe(0);
    expect(run.loaded).toContain('@mh/observability');
    expect(run.loaded).toContain('@opentelemetry/sdk-trace-base');
    expect(run.loaded).not.toContain('kysely');
  });

  it('loads the SQLite store for --db FILE, its driver on the store’s own thread, and not pg', () => {
    const db = join(tempDir(), 'sessions.db');
    const run = runRecorded(['--fake', '--db', db, 'What is 6*7?']);
    expect(run.code).toBe(0);
    expect(run.loaded).toContain('@mh/session-sql');
    // kysely and better-sqlite3 run on the store's thread: this thread never waits for SQLite.
    expect(run.loaded).not.toContain('kysely');
    expect(run.loaded).not.toContain('better-sqlite3');
    expect(run.loaded).not.toContain('pg');
    expect(readFileSync(db).subarray(0, 15).toString('latin1')).toBe('SQLite format 3');
  });

  it('loads the eval toolkit for --record', () => {
    const cassette = join(tempDir(), 'run.cassette.jsonl');
    const run = runRecorded(['--fake', '--record', cassette, 'What is 6*7?']);
    expect(run.code).toBe(0);
    expect(run.loaded).toContain('@mh/eval');
    expect(run.loaded).not.toContain('@opentelemetry/api');
  });

  it('loads the MCP client for --mcp', () => {
    const run = runRecorded(['--mcp', `t=node ${FAKE_MCP_SERVER} ok`, '--list-tools']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^t__echo\s/m);
    expect(run.loaded).toContain('@mh/mcp');
    expect(run.loaded).toContain('@modelcontextprotocol/client');
  });

  it('loads only the vendor SDK --provider names', () => {
    // No key in the environment: the provider is built (its SDK loaded), then refused, exit 2.
    const anthropic = runRecorded(['--provider', 'anthropic', 'hi']);
    expect(anthropic.stderr).toContain('ANTHROPIC_API_KEY');
    expect(anthropic.loaded).toContain('@anthropic-ai/sdk');
    expect(anthropic.loaded).not.toContain('openai');
    const openai = runRecorded(['--provider', 'openai', 'hi']);
    expect(openai.stderr).toContain('OPENAI_API_KEY');
    expect(openai.loaded).toContain('openai');
    expect(openai.loaded).not.toContain('@anthropic-ai/sdk');
  });
});
