import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import * as root from './index.js';
import * as zodFree from './zod-free.js';

const SRC = dirname(fileURLToPath(import.meta.url));

/** Every `from '…'` of a source file that loads something at run time (not `import type`). */
function runtimeImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specifiers: string[] = [];
  for (const match of text.matchAll(/^(import|export)\s+(type\s+)?[^;]*?from\s+'([^']+)';/gms)) {
    if (match[2] === undefined) specifiers.push(match[3] as string);
  }
  return specifiers;
}

describe('@mh/tools/zod-free', () => {
  it('exports what @mh/tools exports, but z', () => {
    expect(Object.keys(zodFree).sort()).toEqual(
      Object.keys(root)
        .filter((name) => name !== 'z')
        .sort(),
    );
  });

  it('loads no zod, in any module it imports (the CLI’s cold start depends on it)', () => {
    const seen = new Set<string>();
    const packages = new Set<string>();
    const pending = [join(SRC, 'zod-free.ts')];
    for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
      if (seen.has(file)) continue;
      seen.add(file);
      for (const specifier of runtimeImports(file)) {
        if (specifier.startsWith('.'))
          pending.push(join(dirname(file), specifier.replace(/\.js$/, '.ts')));
        else packages.add(specifier);
      }
    }
    // The walk reached the tools, so an absent zod means something.
    expect(seen).toContain(join(SRC, 'workspace', 'grep-tool.ts'));
    expect(seen).toContain(join(SRC, 'zod-tool-schema.ts'));
    expect([...packages].filter((name) => name === 'zod' || name.startsWith('zod/'))).toEqual([]);
  });
});
