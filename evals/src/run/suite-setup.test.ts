import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '@mh/core';
import { describe, expect, it } from 'vitest';
import {
  outputFolder,
  PACKAGE_DIR,
  realProvider,
  runPricing,
  stamp,
  systemPrompt,
} from './suite-setup.js';
import { DEFAULT_SYSTEM_PROMPT } from './system-prompt.js';

describe('runPricing', () => {
  it('uses the model table when no price is given', () => {
    const pricing = runPricing({ model: 'claude-sonnet-4-5', prices: {} });
    expect(pricing.source).toBe('model table');
    expect(pricing.price?.inputPerMTok).toBe(3);
  });

  it("puts --price-in/--price-out over the table, keeping the table's cache prices", () => {
    const pricing = runPricing({ model: 'claude-sonnet-4-5', prices: { input: 6, output: 30 } });
    expect(pricing.price).toEqual({
      inputPerMTok: 6,
      outputPerMTok: 30,
      cacheReadPerMTok: 0.3,
      cacheWritePerMTok: 3.75,
    });
    expect(pricing.table.lookup('claude-sonnet-4-5')?.inputPerMTok).toBe(6);
  });

  it('prices cache tokens as input for a model the table does not know', () => {
    const pricing = runPricing({ model: 'local-llm', prices: { input: 1, output: 2 } });
    expect(pricing.price).toMatchObject({ cacheReadPerMTok: 1, cacheWritePerMTok: 1 });
    expect(runPricing({ model: 'local-llm', prices: {} })).toMatchObject({
      price: undefined,
      source: 'none',
    });
  });

  it('needs both --price-in and --price-out', () => {
    expect(() => runPricing({ model: 'x', prices: { input: 1 } })).toThrow(ConfigError);
  });
});

describe('systemPrompt', () => {
  it('is the default prompt, or a file named with its digest', async () => {
    expect(await systemPrompt({})).toEqual({ text: DEFAULT_SYSTEM_PROMPT, label: 'default' });
    const folder = await mkdtemp(join(tmpdir(), 'mh-evals-system-'));
    try {
      const path = join(folder, 'p.txt');
      await writeFile(path, 'Be brief.');
      const prompt = await systemPrompt({ systemFile: path });
      expect(prompt.text).toBe('Be brief.');
      expect(prompt.label).toMatch(/p\.txt \(sha256 [0-9a-f]{12}\)$/);
      await expect(systemPrompt({ systemFile: join(folder, 'missing') })).rejects.toThrow(
        ConfigError,
      );
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
});

describe('realProvider', () => {
  it('fails before any run without an API key', async () => {
    await expect(realProvider({ provider: 'anthropic', cache: true }, {})).rejects.toThrow(
      /ANTHROPIC_API_KEY/,
    );
    await expect(realProvider({ provider: 'openai', cache: true }, {})).rejects.toThrow(
      /OPENAI_API_KEY/,
    );
  });

  it('builds a provider when the key is there (no request is made)', async () => {
    const provider = await realProvider(
      { provider: 'anthropic', cache: false },
      { ANTHROPIC_API_KEY: 'k' },
    );
    expect(typeof provider.stream).toBe('function');
  });
});

describe('outputFolder', () => {
  it('is --out, or a new folder under evals/reports named by time, model and mode', () => {
    const now = new Date('2024-09-17T10:15:00Z');
    expect(stamp(now)).toBe('20240917-101500');
    expect(outputFolder({ out: 'x', model: 'm', dryRun: false }, now)).toBe(
      join(process.cwd(), 'x'),
    );
    expect(outputFolder({ model: 'gpt-4o', dryRun: true }, now)).toBe(
      join(PACKAGE_DIR, 'reports', '20240917-101500-gpt-4o-dry-run'),
    );
  });
});
