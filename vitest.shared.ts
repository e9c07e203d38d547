import { defineConfig } from 'vitest/config';

/** Shared vitest settings: resolve workspace siblings from source so tests never need a build. */
export const sharedConfig: ReturnType<typeof defineConfig> = defineConfig({
  resolve: { conditions: ['@mh/source'] },
  ssr: { resolve: { conditions: ['@mh/source'] } },
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    pool: 'forks',
    maxWorkers: 2,
    // Many tests spawn Node processes (CLI runs, crash workers, MCP servers): on a loaded 2-core
    // CI machine a few of those in one test can pass 20 s. A hang still fails, after a minute.
    testTimeout: 60_000,
  },
});
