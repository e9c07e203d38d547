// A throwaway PostgreSQL server for tests, benchmarks and CI: initdb into a temporary folder,
// listen on a free loopback port, trust authentication, removed afterwards. Plain JavaScript so
// the TypeScript tests, the bench scripts and `.ci/run` share it (node-postgres comes from this
// package's dev dependencies). As root it runs the server as the `postgres` OS user, since
// initdb and postgres refuse to run as root.
//
// CLI: `node throwaway-postgres.mjs start` prints shell `export` lines (MH_TEST_PG_URL, and
// MH_TEST_PG_DIR for `stop`); `node throwaway-postgres.mjs stop DIR` stops and removes it.
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  appendFileSync,
  chownSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;

/**
 * The folder holding initdb and pg_ctl, or undefined when PostgreSQL is not installed. When
 * `MH_PG_BIN` is set, only that folder counts (set it to a folder without PostgreSQL to see
 * what a machine without it does).
 */
export function findPostgresBin() {
  const fromEnv = process.env.MH_PG_BIN;
  if (fromEnv !== undefined) return existsSync(join(fromEnv, 'initdb')) ? fromEnv : undefined;
  const debian = '/usr/lib/postgresql';
  if (existsSync(debian)) {
    const versions = readdirSync(debian)
      .filter((version) => existsSync(join(debian, version, 'bin', 'initdb')))
      .sort((a, b) => Number(b) - Number(a));
    if (versions.length > 0) return join(debian, versions[0], 'bin');
  }
  for (const folder of (process.env.PATH ?? '').split(':')) {
    if (folder && existsSync(join(folder, 'initdb')) && existsSync(join(folder, 'pg_ctl'))) {
      return folder;
    }
  }
  return undefined;
}

/** The user the server runs as: ourselves, or `postgres` when we are root. */
function serverUser() {
  if (!isRoot) return undefined;
  const found = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
  if (found.status !== 0) {
    throw new Error('running as root needs a "postgres" OS user to run the test server as');
  }
  const uid = Number(found.stdout.trim());
  const gid = Number(spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).stdout.trim());
  return { name: 'postgres', uid, gid };
}

function run(user, command, args) {
  const [file, argv] = user
    ? ['runuser', ['-u', user.name, '--', command, ...args]]
    : [command, args];
  return execFileSync(file, argv, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts a server. Returns its URL (database `postgres`, user `mh`) and controls: `stop(mode)`
 * ('fast' shuts down cleanly, 'immediate' is a crash: the next start replays the WAL), `start()`
 * to bring it back on the same port, and `remove()` to stop it and delete its files. The server
 * is also stopped when this process exits, unless `stopOnExit` is false.
 */
export async function startPostgres(options = {}) {
  const bin = options.bin ?? findPostgresBin();
  if (!bin) throw new Error('PostgreSQL is not installed (no initdb found)');
  const user = serverUser();
  const base = mkdtempSync(join(tmpdir(), 'mh-pg-'));
  if (user) chownSync(base, user.uid, user.gid);
  const data = join(base, 'data');
  run(user, join(bin, 'initdb'), [
    '-D',
    data,
    '-U',
    'mh',
    '-A',
    'trust',
    '-E',
    'UTF8',
    '--locale=C',
    '--no-sync',
  ]);
  const conf = join(data, 'postgresql.conf');
  appendFileSync(
    conf,
    [
      "listen_addresses = '127.0.0.1'",
      `unix_socket_directories = '${base}'`,
      `max_connections = ${options.maxConnections ?? 200}`,
      // Quick shutdowns for restart tests; durability settings stay at their defaults.
      'shared_buffers = 32MB',
      '',
    ].join('\n'),
  );
  const pgCtl = (...args) => run(user, join(bin, 'pg_ctl'), ['-D', data, ...args]);
  let port;
  for (let attempt = 1; ; attempt++) {
    port = await freePort();
    appendFileSync(conf, `port = ${port}\n`);
    try {
      pgCtl('-l', join(base, 'server.log'), '-w', '-t', '60', 'start');
      break;
    } catch (error) {
      if (attempt >= 3) {
        const log = existsSync(join(base, 'server.log'))
          ? readFileSync(join(base, 'server.log'), 'utf8').slice(-2000)
          : '';
        throw new Error(`could not start PostgreSQL: ${error.message}\n${log}`);
      }
    }
  }
  let running = true;
  const stopSync = () => {
    if (!running) return;
    running = false;
    try {
      pgCtl('-m', 'immediate', '-w', 'stop');
    } catch {
      // Already stopped.
    }
  };
  if (options.stopOnExit !== false) process.on('exit', stopSync);
  const url = `postgres://mh@127.0.0.1:${port}/postgres`;
  return {
    url,
    port,
    dir: base,
    stop(mode = 'fast') {
      pgCtl('-m', mode, '-w', '-t', '60', 'stop');
      running = false;
    },
    start() {
      pgCtl('-l', join(base, 'server.log'), '-w', '-t', '60', 'start');
      running = true;
    },
    remove() {
      stopSync();
      process.off('exit', stopSync);
      rmSync(base, { recursive: true, force: true });
    },
  };
}

/** Creates an empty database with a random name on the server at `url`; returns its URL. */
export async function createDatabase(url, prefix = 'mh_test') {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`create database "${name}"`);
  } finally {
    await client.end();
  }
  const target = new URL(url);
  target.pathname = `/${name}`;
  return target.toString();
}

/** Drops the database at `url` (connecting to the server's `postgres` database to do it). */
export async function dropDatabase(url) {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.slice(1));
  target.pathname = '/postgres';
  const client = new pg.Client({ connectionString: target.toString() });
  await client.connect();
  try {
    await client.query(`drop database if exists "${name}" with (force)`);
  } finally {
    await client.end();
  }
}

/**
 * Where tests find PostgreSQL: `MH_TEST_PG_URL` when set, else a server of their own when the
 * binaries are installed, else nowhere. `required` is true when `MH_REQUIRE_POSTGRES=1` (CI):
 * then "nowhere" must fail the tests instead of skipping them.
 */
export function postgresAvailability() {
  const required = process.env.MH_REQUIRE_POSTGRES === '1';
  const url = process.env.MH_TEST_PG_URL;
  if (url) return { kind: 'url', url, required, bin: findPostgresBin() };
  const bin = findPostgresBin();
  if (bin) return { kind: 'local', bin, required };
  return {
    kind: 'none',
    required,
    reason:
      'PostgreSQL not found: set MH_TEST_PG_URL, or install it (apt-get install -y postgresql) so the tests can start their own server',
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [command, dir] = process.argv.slice(2);
  if (command === 'start') {
    const server = await startPostgres({ stopOnExit: false });
    process.stdout.write(`export MH_TEST_PG_URL='${server.url}' MH_TEST_PG_DIR='${server.dir}'\n`);
    // Leave the server running for the caller; `stop DIR` ends it.
    process.exit(0);
  } else if (command === 'stop' && dir) {
    const bin = findPostgresBin();
    const user = serverUser();
    try {
      run(user, join(bin, 'pg_ctl'), ['-D', join(dir, 'data'), '-m', 'fast', '-w', 'stop']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  } else {
    process.stderr.write('usage: throwaway-postgres.mjs start | stop DIR\n');
    process.exit(2);
  }
}
