import * as core from '@mh/core';
import { describe, expect, it } from 'vitest';
import * as sdk from './index.js';

describe('@mh/sdk exports', () => {
  it('re-exports every error class of @mh/core, so a user can catch what the agent throws', () => {
    const errorNames = Object.entries(core)
      .filter(
        ([, value]) =>
          typeof value === 'function' &&
          (value === core.HarnessError || value.prototype instanceof core.HarnessError),
      )
      .map(([name]) => name)
      .sort();
    expect(errorNames).toContain('SessionStoreUnavailableError');
    expect(errorNames.length).toBeGreaterThanOrEqual(12);
    const missing = errorNames.filter(
      (name) => (sdk as Record<string, unknown>)[name] !== (core as Record<string, unknown>)[name],
    );
    expect(missing).toEqual([]);
  });

  it('keeps ToolExecutor, the deprecated name of PolicyToolExecutor', () => {
    expect(sdk.PolicyToolExecutor).toBeTypeOf('function');
    expect(sdk.ToolExecutor).toBe(sdk.PolicyToolExecutor);
  });
});
