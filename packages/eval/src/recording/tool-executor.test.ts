import type { Tool, ToolExecutor } from '@mh/core';
import { collectOutcomes, toolExecutorContractProblems } from '@mh/core/testing';
import { PolicyToolExecutor } from '@mh/tools';
import { describe, expect, it } from 'vitest';
import { CountingExecutor, tempCassette } from '../../test/helpers.js';
import { openCassette } from '../cassette/cassette.js';
import { readCassetteFile } from '../cassette/reader.js';

describe('RecordingToolExecutor', () => {
  it('records each outcome as the inner executor yields it, and passes it on unchanged', async () => {
    const path = tempCassette();
    const cassette = await openCassette(path, { mode: 'record' });
    const executor = cassette.tools(new CountingExecutor(), { case: 'c', repeat: 0 });
    const call = { type: 'tool_use', id: 't1', name: 'lookup', input: { query: 'q' } } as const;
    const outcomes = await collectOutcomes(
      executor.execute([call], { signal: new AbortController().signal }),
    );
    await cassette.close();
    const { tools } = readCassetteFile(path);
    expect(tools.map((entry) => entry.outcome.result)).toEqual(outcomes.map((o) => o.result));
  });

  it('keeps the port contract of the executor it wraps', async () => {
    const cassette = await openCassette(tempCassette(), { mode: 'record' });
    let repeat = 0;
    const make = (tools: readonly Tool[]): ToolExecutor =>
      cassette.tools(new PolicyToolExecutor({ tools, grants: ['write'] }), {
        case: 'contract',
        repeat: repeat++,
      });
    expect(await toolExecutorContractProblems(make)).toEqual([]);
    await cassette.close();
  });
});
