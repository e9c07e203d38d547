import { join } from 'node:path';

/**
 * The demo's one optional argument: the folder its reports go to (default `reports/eval-demo`).
 * A leading `--` (which `pnpm eval-demo -- …` passes on) is skipped; a flag or a second folder
 * throws an `Error` with the usage line, so a typo never becomes a folder name.
 */
export function parseDemoArgs(argv: readonly string[]): string {
  const args = argv[0] === '--' ? argv.slice(1) : argv;
  const [out, extra] = args;
  const unexpected = out?.startsWith('-') ? out : extra;
  if (unexpected !== undefined)
    throw new Error(`unexpected argument ${unexpected}; usage: eval-demo [OUT_DIR]`);
  return out ?? join('reports', 'eval-demo');
}
