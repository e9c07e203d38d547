import { join } from 'node:path';

/** What the demo was asked to do. */
export interface DemoArgs {
  /** The folder its JSON reports go to (default `reports/eval-demo`). */
  readonly out: string;
  /** Where to write the HTML report of v2 compared with v1, when asked (`--html FILE`). */
  readonly html?: string;
}

const USAGE = 'usage: eval-demo [OUT_DIR] [--html FILE]';

/**
 * The demo's arguments: an optional folder for its reports and `--html FILE` (or
 * `--html=FILE`). A leading `--` (which `pnpm eval-demo -- …` passes on) is skipped; an unknown
 * flag, a second folder or `--html` without a file throws an `Error` with the usage line, so a
 * typo never becomes a folder or file name.
 */
export function parseDemoArgs(argv: readonly string[]): DemoArgs {
  const args = argv[0] === '--' ? argv.slice(1) : [...argv];
  let out: string | undefined;
  let html: string | undefined;
  for (let index = 0; index < args.length; index++) {
    const arg = args[index] as string;
    if (arg === '--html' || arg.startsWith('--html=')) {
      const file = arg === '--html' ? args[++index] : arg.slice('--html='.length);
      if (file === undefined || file === '' || file.startsWith('-'))
        throw new Error(`--html needs a file name; ${USAGE}`);
      if (html !== undefined) throw new Error(`--html given twice; ${USAGE}`);
      html = file;
    } else if (arg.startsWith('-') || out !== undefined) {
      throw new Error(`unexpected argument ${arg}; ${USAGE}`);
    } else {
      out = arg;
    }
  }
  return { out: out ?? join('reports', 'eval-demo'), ...(html === undefined ? {} : { html }) };
}
