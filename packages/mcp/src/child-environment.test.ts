import { describe, expect, it } from 'vitest';
import { childEnvironment } from './child-environment.js';

describe('childEnvironment', () => {
  const parent = { PATH: '/bin', HOME: '/h', MY_API_KEY: 'secret', SHELL: '() { evil; }' };

  it('keeps only the minimal keys and never API keys', () => {
    expect(childEnvironment({}, parent)).toEqual({ PATH: '/bin', HOME: '/h' });
  });

  it('adds explicit variables and removes keys passed as undefined', () => {
    expect(childEnvironment({ TOKEN: 't', HOME: undefined }, parent)).toEqual({
      PATH: '/bin',
      TOKEN: 't',
    });
  });
});
