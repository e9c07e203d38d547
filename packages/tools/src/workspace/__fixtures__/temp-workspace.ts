import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** A real temporary folder holding a workspace (`root`) and a sibling folder outside it. */
export interface TempWorkspace {
  /** The workspace root. */
  readonly root: string;
  /** A folder next to the root, which the tools must never reach. */
  readonly outside: string;
  /** Deletes everything. */
  remove(): Promise<void>;
}

/**
 * Builds:
 * ```
 * root/notes.txt            three lines
 * root/src/main.ts          has "TODO"
 * root/src/util/helper.ts   has "TODO"
 * root/src/data.json
 * root/image.bin            has NUL bytes
 * root/big.log              2,000 bytes
 * root/empty/
 * root/node_modules/dep/index.ts   has "TODO" (ignored by walks)
 * root/inside-link.txt  -> root/notes.txt
 * root/escape-link.txt  -> outside/secret.txt
 * root/escape-dir       -> outside/
 * outside/secret.txt        has "TODO secret"
 * ```
 */
export async function makeTempWorkspace(): Promise<TempWorkspace> {
  const base = await mkdtemp(path.join(tmpdir(), 'mh-tools-'));
  const root = path.join(base, 'root');
  const outside = path.join(base, 'outside');
  const files: Record<string, string | Buffer> = {
    'notes.txt': 'first line\nsecond line\nthird line\n',
    'src/main.ts': "import { help } from './util/helper.js';\n// TODO: wire it up\nhelp();\n",
    'src/util/helper.ts': 'export function help(): void {}\n// todo lower case\n// TODO upper\n',
    'src/data.json': '{ "answer": 42 }\n',
    'image.bin': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x00, 0x01]),
    'big.log': 'x'.repeat(1_999).concat('\n'),
    'node_modules/dep/index.ts': '// TODO in a dependency\n',
  };
  for (const [relative, content] of Object.entries(files)) {
    const target = path.join(root, relative);
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, content);
  }
  await mkdir(path.join(root, 'empty'));
  await mkdir(outside);
  await writeFile(path.join(outside, 'secret.txt'), 'TODO secret\n');
  await symlink(path.join(root, 'notes.txt'), path.join(root, 'inside-link.txt'));
  await symlink(path.join(outside, 'secret.txt'), path.join(root, 'escape-link.txt'));
  await symlink(outside, path.join(root, 'escape-dir'));
  return { root, outside, remove: () => rm(base, { recursive: true, force: true }) };
}
