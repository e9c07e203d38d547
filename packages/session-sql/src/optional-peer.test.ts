import { ConfigError } from '@mh/core';
import { describe, expect, it } from 'vitest';
import { loadOptionalPeer } from './optional-peer.js';

describe('loadOptionalPeer', () => {
  it('returns the module when it is installed', async () => {
    const kysely = await loadOptionalPeer('kysely', 'test', () => import('kysely'));
    expect(typeof kysely.Kysely).toBe('function');
  });

  it('names the package to install when it is not', async () => {
    const name = 'mh-no-such-driver';
    const error = await loadOptionalPeer(name, 'openThing', () => import(name)).catch((e) => e);
    expect(ConfigError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ field: 'driver' });
    expect(error.message).toContain('openThing needs the package "mh-no-such-driver"');
    expect(error.message).toContain('pnpm add mh-no-such-driver');
  });

  it('rethrows any other failure to load', async () => {
    const broken = new SyntaxError('Unexpected token');
    await expect(loadOptionalPeer('pg', 'x', () => Promise.reject(broken))).rejects.toBe(broken);
  });
});
