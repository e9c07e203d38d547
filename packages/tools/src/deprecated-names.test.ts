import { describe, expect, it } from 'vitest';
import * as tools from './index.js';

describe('deprecated names of @mh/tools', () => {
  it('keeps ToolExecutor as the PolicyToolExecutor class', () => {
    expect(tools.ToolExecutor).toBe(tools.PolicyToolExecutor);
    const executor: tools.ToolExecutor = new tools.ToolExecutor({ tools: [] });
    expect(executor).toBeInstanceOf(tools.PolicyToolExecutor);
  });

  it('keeps SpotlightingExecutor as the FencingExecutor class', () => {
    expect(tools.SpotlightingExecutor).toBe(tools.FencingExecutor);
    const options: tools.SpotlightingExecutorOptions = {
      executor: new tools.PolicyToolExecutor({ tools: [] }),
      boundary: 'untrusted-testboundary',
    };
    expect(new tools.SpotlightingExecutor(options).boundary).toBe('untrusted-testboundary');
  });
});
