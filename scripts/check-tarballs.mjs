// Uses the packages as a user gets them: packs every publishable package (`pnpm pack`, which runs
// its prepack: clean, build, publint), then, in fresh folders outside the workspace, installs the
// tarballs with npm from the registry and
//   - checks every tarball: a LICENSE, no .tsbuildinfo, no `workspace:` range left;
//   - runs the root README's example ("An agent in ten lines") with only the packages it imports
//     (and their own dependencies) installed, compares its output with the README's comment, and
//     type-checks it with TypeScript 5.9 and with the workspace's TypeScript 7;
//   - type-checks, with `--strict` and lib checking on, a file that imports every public subpath
//     of every package, with only what the packages declare installed (their optional peers at
//     the versions we test, without install scripts: the declarations need no native build).
// Runs under the Node that runs it (CI's second leg runs it under Node 24). Every problem is
// listed; the exit code is 1 when there was one.
//
//   node scripts/check-tarballs.mjs [--pack-into DIR | --tarballs DIR] [--keep]
// --pack-into DIR packs into DIR (a new or empty folder) and leaves the tarballs there, for a
// second run; --tarballs DIR checks the .tgz files already in DIR instead of packing; --keep
// leaves the temporary folder (the npm projects) in place.
import { spawn, spawnSync } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const TYPESCRIPT_5 = 'typescript@5.9';
const TSC_7 = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
const started = Date.now();
const problems = [];
const args = process.argv.slice(2);
const option = (name) => (args.includes(name) ? resolve(args[args.indexOf(name) + 1]) : null);
const given = option('--tarballs');
const packInto = option('--pack-into');
const keep = args.includes('--keep');

const readJson = (path) => JSON.parse(readFileSync(path, 'utf8'));
const rootManifest = readJson(join(ROOT, 'package.json'));

/** Runs a command; on failure records a problem with its output and returns false. */
function run(label, command, commandArgs, options = {}) {
  const result = spawnSync(command, commandArgs, { encoding: 'utf8', ...options });
  return settle(label, result.status, result.stdout, result.stderr, result.error);
}

/** `run` without blocking, so independent npm projects install and type-check side by side. */
function runAsync(label, command, commandArgs, options = {}) {
  return new Promise((done) => {
    const child = spawn(command, commandArgs, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('error', (error) => done(settle(label, null, stdout, stderr, error)));
    child.on('close', (status) => done(settle(label, status, stdout, stderr)));
  });
}

function settle(label, status, stdout, stderr, error) {
  if (status === 0) return stdout;
  const output = `${stdout ?? ''}${stderr ?? ''}${error?.message ?? ''}`;
  problems.push(`${label}: exit ${status}\n${output.trim().split('\n').slice(-40).join('\n')}`);
  return false;
}

function step(text) {
  console.log(`-- ${text} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
}

const work = mkdtempSync(join(tmpdir(), 'mh-tarballs-'));
const tarballDir = given ?? packInto ?? join(work, 'tarballs');

// 1. Pack.
const sources = readdirSync(join(ROOT, 'packages'))
  .map((name) => join(ROOT, 'packages', name))
  .filter((dir) => {
    try {
      return !readJson(join(dir, 'package.json')).private;
    } catch {
      return false;
    }
  });
if (!given) {
  step(`packing ${sources.length} packages`);
  mkdirSync(tarballDir, { recursive: true });
  if (readdirSync(tarballDir).length > 0) {
    console.error(`${tarballDir} is not empty: pack into a new folder`);
    process.exit(1);
  }
  for (const dir of sources) {
    run(`pnpm pack in ${basename(dir)}`, 'pnpm', ['pack', '--pack-destination', tarballDir], {
      cwd: dir,
    });
  }
}

// 2. Look inside each tarball.
const packages = new Map(); // name → { file, manifest }
let packedBytes = 0;
let unpackedBytes = 0;
for (const file of readdirSync(tarballDir).filter((name) => name.endsWith('.tgz'))) {
  const path = join(tarballDir, file);
  const list = spawnSync('tar', ['tzvf', path], { encoding: 'utf8' }).stdout.trim().split('\n');
  const entries = list.map((line) => {
    const fields = line.trim().split(/\s+/);
    return { size: Number(fields[2]), name: fields.slice(5).join(' ') };
  });
  const manifest = JSON.parse(
    spawnSync('tar', ['xzf', path, '-O', 'package/package.json'], { encoding: 'utf8' }).stdout,
  );
  packages.set(manifest.name, { file: path, manifest });
  packedBytes += statSync(path).size;
  unpackedBytes += entries.reduce((sum, entry) => sum + entry.size, 0);
  if (!entries.some((entry) => /^package\/LICENSE(\.md)?$/.test(entry.name))) {
    problems.push(`${manifest.name}: no LICENSE in the tarball`);
  }
  for (const entry of entries.filter((each) => each.name.endsWith('.tsbuildinfo'))) {
    problems.push(`${manifest.name}: ships ${entry.name} (${entry.size} bytes)`);
  }
  for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies']) {
    for (const [name, range] of Object.entries(manifest[field] ?? {})) {
      if (String(range).startsWith('workspace:')) {
        problems.push(`${manifest.name}: ${field}.${name} is still ${range}`);
      }
    }
  }
}
if (packages.size !== sources.length && !given) {
  problems.push(`packed ${packages.size} tarballs for ${sources.length} packages`);
}
step(
  `${packages.size} tarballs: ${(packedBytes / 1024).toFixed(0)} KiB packed, ${(unpackedBytes / 1024).toFixed(0)} KiB unpacked`,
);

/** The @mh packages `names` need, with their own @mh dependencies, as tarball paths. */
function tarballsFor(names) {
  const wanted = new Set();
  const visit = (name) => {
    if (wanted.has(name)) return;
    const entry = packages.get(name);
    if (!entry) {
      problems.push(`no tarball for ${name}`);
      return;
    }
    wanted.add(name);
    for (const dependency of Object.keys(entry.manifest.dependencies ?? {})) {
      if (dependency.startsWith('@mh/')) visit(dependency);
    }
  };
  for (const name of names) visit(name);
  return [...wanted].flatMap((name) => (packages.has(name) ? [packages.get(name).file] : []));
}

/** A fresh npm project in `dir` with `installs` installed; false when npm failed. */
async function npmProject(dir, installs, extra = []) {
  mkdirSync(dir);
  writeFileSync(
    join(dir, 'package.json'),
    `${JSON.stringify({ name: basename(dir), private: true, type: 'module' }, null, 2)}\n`,
  );
  writeFileSync(
    join(dir, 'tsconfig.json'),
    `${JSON.stringify(
      {
        compilerOptions: {
          target: 'es2022',
          module: 'nodenext',
          moduleResolution: 'nodenext',
          strict: true,
          types: ['node'],
          outDir: 'out',
        },
        include: ['*.ts'],
      },
      null,
      2,
    )}\n`,
  );
  const npmArgs = ['install', '--no-audit', '--no-fund', '--loglevel=error', ...extra, ...installs];
  return (
    (await runAsync(`npm install in ${basename(dir)}`, 'npm', npmArgs, { cwd: dir })) !== false
  );
}

// TypeScript 5.9 in a folder of its own, shared by both projects (a compiler finds a project's
// types from the project, not from where it is installed).
const typescript5 = join(work, 'typescript-5');
const tsc5 = join(typescript5, 'node_modules', 'typescript', 'bin', 'tsc');
const typesNode = `@types/node@${rootManifest.devDependencies['@types/node']}`;
const typescript5Ready = npmProject(typescript5, [TYPESCRIPT_5]);

/** Type-checks the project in `dir` with TypeScript 5.9 (emitting, when `emit`) and 7. */
async function typecheck(dir, label, emit) {
  if (!(await typescript5Ready)) return false;
  const version = readJson(join(typescript5, 'node_modules', 'typescript', 'package.json')).version;
  const [ok5, ok7] = await Promise.all([
    runAsync(
      `${label}: tsc ${version}`,
      process.execPath,
      [tsc5, '-p', '.', ...(emit ? [] : ['--noEmit'])],
      {
        cwd: dir,
      },
    ),
    runAsync(`${label}: tsc 7 (workspace)`, process.execPath, [TSC_7, '-p', '.', '--noEmit'], {
      cwd: dir,
    }),
  ]);
  const verdict = (ok) => (ok === false ? 'FAILED' : 'ok');
  step(`${label}: TypeScript ${version} ${verdict(ok5)}, TypeScript 7 ${verdict(ok7)}`);
  return ok5 !== false;
}

/** 3. The README's example, with only what it imports. */
async function readmeExample() {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const example = readme.match(/## An agent in ten lines\s+```ts\n([\s\S]*?)```/)?.[1];
  if (!example) {
    problems.push('README.md: no ```ts block under "## An agent in ten lines"');
    return;
  }
  const imported = new Set([...example.matchAll(/from '(@mh\/[^/']+)/g)].map((match) => match[1]));
  const expected = example.match(/console\.log\(.*\/\/ (.+)$/m)?.[1].trim();
  if (!expected) problems.push("README.md: the example's console.log has no // expected output");
  const dir = join(work, 'readme-example');
  step(`README example: npm install ${[...imported].join(', ')}`);
  if (!(await npmProject(dir, [...tarballsFor(imported), typesNode]))) return;
  writeFileSync(join(dir, 'example.ts'), example);
  if (!(await typecheck(dir, 'README example', true))) return;
  const output = run('README example: node out/example.js', process.execPath, ['out/example.js'], {
    cwd: dir,
  });
  if (output === false) return;
  if (expected && output.trim() !== expected) {
    problems.push(
      `README example printed ${JSON.stringify(output.trim())}, the README says ${JSON.stringify(expected)}`,
    );
  } else {
    step(`README example ran on Node ${process.versions.node}: ${output.trim()}`);
  }
}

/** 4. A strict consumer of every public subpath. */
async function strictConsumer() {
  const peers = new Map();
  const imports = [];
  for (const { manifest } of packages.values()) {
    // The workspace manifest of the same name: its devDependencies hold the tested versions.
    const source = sources
      .map((dir) => readJson(join(dir, 'package.json')))
      .find((each) => each.name === manifest.name);
    for (const name of Object.keys(manifest.peerDependencies ?? {})) {
      // The version our own tests use: the exact devDependency beside the peer range.
      const version = source?.devDependencies?.[name];
      peers.set(name, version ? `${name}@${version}` : name);
    }
    for (const subpath of Object.keys(manifest.exports ?? { '.': null })) {
      if (subpath.endsWith('package.json') || subpath.includes('*')) continue;
      imports.push(subpath === '.' ? manifest.name : `${manifest.name}/${subpath.slice(2)}`);
    }
  }
  const dir = join(work, 'strict-consumer');
  step(`strict consumer: npm install ${packages.size} tarballs, ${[...peers.values()].join(', ')}`);
  const installs = [...tarballsFor(packages.keys()), ...peers.values(), typesNode];
  if (!(await npmProject(dir, installs, ['--ignore-scripts']))) return;
  const lines = imports.map((specifier, index) => `import * as m${index} from '${specifier}';`);
  const names = imports.map((_, index) => `m${index}`).join(', ');
  writeFileSync(
    join(dir, 'consumer.ts'),
    `${lines.join('\n')}\n\nexport const modules = [${names}];\n`,
  );
  await typecheck(dir, `strict consumer of ${imports.length} subpaths`, false);
}

await Promise.all([readmeExample(), strictConsumer()]);

if (keep) console.log(`kept ${work}`);
else rmSync(work, { recursive: true, force: true });
const seconds = ((Date.now() - started) / 1000).toFixed(1);
if (problems.length > 0) {
  console.error(`\n${problems.length} problem(s) (${seconds} s):\n\n${problems.join('\n\n')}`);
  process.exit(1);
}
console.log(`tarballs ok on Node ${process.versions.node} in ${seconds} s`);
