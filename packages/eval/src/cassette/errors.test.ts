import { ConfigError } from '@mh/core';
import { describe, expect, it } from 'vitest';
import { CassetteFileError } from './errors.js';

describe('CassetteFileError', () => {
  it('is recognised from this copy and from another one, by its brand name', () => {
    const error = new CassetteFileError('run.jsonl', 'missing', 'no such file');
    expect(CassetteFileError.isInstance(error)).toBe(true);
    expect(ConfigError.isInstance(error)).toBe(true);
    const foreign = { [Symbol.for('mh.error.CassetteFileError')]: true };
    expect(CassetteFileError.isInstance(foreign)).toBe(true);
    expect(CassetteFileError.isInstance(new ConfigError('path', 'bad'))).toBe(false);
  });
});
