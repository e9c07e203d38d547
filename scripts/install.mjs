// Installs the workspace with pnpm, and lets better-sqlite3 compile offline.
//
// better-sqlite3 builds from source with node-gyp when no prebuilt binary can be downloaded.
// node-gyp then needs Node's C headers: it downloads them unless `nodedir` points at a local copy.
// Machines without internet access usually ship the headers beside Node (npm's `nodedir`), but
// pnpm does not pass npm's setting on to build scripts. So: when this Node's own headers are
// installed beside it, point node-gyp at them; otherwise leave node-gyp to its default.
// Arguments are passed to `pnpm install` (e.g. --frozen-lockfile).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

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
process.exit(result.status ?? 1);
