import { defineConfig } from 'vitest/config';

/** Shared vitest settings: resolve workspace siblings from source so tests never need a build. */
export const sharedConfig: ReturnType<typeof defineConfig> = defineConfig({
  resolve: { conditions: ['@mh/source'] },
  ssr: { resolve: { conditions: ['@mh/source'] } },
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 20_000,
  },
});
