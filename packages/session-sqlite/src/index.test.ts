import { readFileSync } from 'node:fs';
import * as renamed from '@mh/session-sql';
import * as renamedPostgres from '@mh/session-sql/postgres';
import { describe, expect, it } from 'vitest';
import * as deprecated from './index.js';
import * as deprecatedPostgres from './postgres.js';

/** Every name (value or type) a source file exports through its `export { … } from` lists. */
function exportedNames(file: URL): string[] {
  const source = readFileSync(file, 'utf8');
  const lists = [...source.matchAll(/^export (?:type )?\{([^}]*)\}/gm)];
  const names = lists.flatMap((list) => (list[1] ?? '').split(','));
  return [
    ...new Set(names.map((name) => name.trim().replace(/^type /, '')).filter(Boolean)),
  ].sort();
}

const entries = [
  {
    subpath: '.',
    deprecated: deprecated as Record<string, unknown>,
    renamed: renamed as Record<string, unknown>,
    deprecatedSource: new URL('./index.ts', import.meta.url),
    renamedSource: new URL('../../session-sql/src/index.ts', import.meta.url),
  },
  {
    subpath: './postgres',
    deprecated: deprecatedPostgres as Record<string, unknown>,
    renamed: renamedPostgres as Record<string, unknown>,
    deprecatedSource: new URL('./postgres.ts', import.meta.url),
    renamedSource: new URL('../../session-sql/src/postgres/index.ts', import.meta.url),
  },
];

describe('@mh/session-sqlite', () => {
  it.each(entries)(
    'exports at $subpath the very values of @mh/session-sql, no more, no fewer',
    (entry) => {
      expect(Object.keys(entry.deprecated).sort()).toEqual(Object.keys(entry.renamed).sort());
      for (const [name, value] of Object.entries(entry.renamed)) {
        expect(entry.deprecated[name], name).toBe(value);
      }
    },
  );

  it.each(entries)('exports at $subpath the same type names as @mh/session-sql', (entry) => {
    expect(exportedNames(entry.deprecatedSource)).toEqual(exportedNames(entry.renamedSource));
  });
});
