// `pnpm mh …`: runs the command line from this checkout, building it first when it is missing or
// older than its sources. It was `tsc -b apps/cli && node apps/cli/dist/main.js`: a second Node
// process for tsc and a build check on every run, about a quarter of a second before mh started.
// Here the check is a look at modification times in this process, and tsc -b runs only when a
// source, a folder (a file added or removed) or a tsconfig of apps/cli or of a project it
// references is newer than that project's .tsbuildinfo — which tsc -b itself writes or touches on
// every build, or than this script's last build — so a build that found nothing to do is not
// repeated. Then mh runs in this process.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const CLI = join(ROOT, 'apps', 'cli');
// When this script's last successful tsc -b started: every project was up to date then. tsc
// writes nothing when only a folder changed (a file removed), so its .tsbuildinfo cannot say so.
const STAMP = join(CLI, 'dist', '.mh-built');

/** Modification time in ms, or undefined when the path is missing. */
function mtime(path) {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return undefined;
  }
}

/** Whether `dir` or anything under it that tsc builds (tests excluded, as in tsconfig.base.json) is newer than `than`. */
function newerUnder(dir, than) {
  if ((mtime(dir) ?? Number.POSITIVE_INFINITY) > than) return true;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== '__fixtures__' && newerUnder(path, than)) return true;
    } else if (!entry.name.endsWith('.test.ts') && (mtime(path) ?? 0) > than) {
      return true;
    }
  }
  return false;
}

/** Whether the project in `dir` or one it references (transitively) needs a build. */
function stale(dir, seen = new Set()) {
  if (seen.has(dir)) return false;
  seen.add(dir);
  const info = mtime(join(dir, 'dist', '.tsbuildinfo'));
  if (info === undefined) return true;
  const built = Math.max(info, mtime(STAMP) ?? 0);
  const config = join(dir, 'tsconfig.json');
  for (const input of [config, join(dir, 'package.json'), join(ROOT, 'tsconfig.base.json')]) {
    if ((mtime(input) ?? Number.POSITIVE_INFINITY) > built) return true;
  }
  if (newerUnder(join(dir, 'src'), built)) return true;
  const { references = [] } = JSON.parse(readFileSync(config, 'utf8'));
  return references.some((reference) => stale(resolve(dir, reference.path), seen));
}

let needsBuild;
try {
  needsBuild = stale(CLI);
} catch {
  // A tsconfig this check cannot read (comments, say): let tsc decide.
  needsBuild = true;
}
if (needsBuild) {
  const started = new Date();
  const bin = join(ROOT, 'node_modules', '.bin');
  const build = spawnSync('tsc', ['-b', CLI], {
    stdio: 'inherit',
    shell: process.platform === 'win32',
    env: { ...process.env, PATH: `${bin}${delimiter}${process.env.PATH ?? ''}` },
  });
  if (build.status !== 0) process.exit(build.status ?? 1);
  writeFileSync(STAMP, '');
  utimesSync(STAMP, started, started);
}
// mh reads its arguments from process.argv.slice(2), the same here as under `node main.js`.
await import(pathToFileURL(join(CLI, 'dist', 'main.js')).href);
