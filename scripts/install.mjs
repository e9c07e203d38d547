// Installs the workspace with pnpm, and lets better-sqlite3 compile offline.
//
// better-sqlite3 builds from source with node-gyp when no prebuilt binary can be downloaded.
// node-gyp then needs Node's C headers: it downloads them unless `nodedir` points at a local copy.
// Machines without internet access usually ship the headers beside Node (npm's `nodedir`), but
// pnpm does not pass npm's setting on to build scripts. So: when this Node's own headers are
// installed beside it, point node-gyp at them; otherwise leave node-gyp to its default.
// Arguments are passed to `pnpm install` (e.g. --frozen-lockfile).
//
// Then it builds apps/cli (and the packages it references) with tsc -b, so the `mh` bin that the
// root links (node_modules/.bin/mh → apps/cli/dist/main.js) runs: `pnpm mh …` or `pnpm exec mh …`.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

function localHeaders() {
  const prefix = dirname(dirname(process.execPath));
  const header = join(prefix, 'include', 'node', 'node_version.h');
  if (!existsSync(header)) return undefined;
  const text = readFileSync(header, 'utf8');
  const part = (name) => text.match(new RegExp(`#define ${name} (\\d+)`))?.[1];
  const version = `${part('NODE_MAJOR_VERSION')}.${part('NODE_MINOR_VERSION')}.${part('NODE_PATCH_VERSION')}`;
  return version === process.versions.node ? prefix : undefined;
}

const env = { ...process.env };
const prefix = env.npm_config_nodedir ? undefined : localHeaders();
if (prefix) env.npm_config_nodedir = prefix;
const result = spawnSync('pnpm', ['install', ...process.argv.slice(2)], { stdio: 'inherit', env });
if (result.error) {
  console.error(
    `could not run pnpm (install it with: npm i -g pnpm@12.4.2): ${result.error.message}`,
  );
  process.exit(1);
}
if (result.status !== 0) process.exit(result.status ?? 1);

// tsc -b is incremental: after a first build this is a quick check that finds nothing to do.
const bin = join(ROOT, 'node_modules', '.bin');
const build = spawnSync('tsc', ['-b', join(ROOT, 'apps', 'cli')], {
  stdio: 'inherit',
  shell: process.platform === 'win32',
  env: { ...process.env, PATH: `${bin}${delimiter}${process.env.PATH ?? ''}` },
});
if (build.status !== 0) {
  console.error('building apps/cli (the mh bin) failed');
  process.exit(build.status ?? 1);
}
