import { describe, expect, it } from 'vitest';
import { brandCheck, errorBrand } from './brand-check.js';

describe('brandCheck', () => {
  const isWidgetError = brandCheck<Error>('WidgetError');

  it('recognises a value branded mh.error.<name> by any copy (a registered symbol)', () => {
    expect(errorBrand('WidgetError')).toBe(Symbol.for('mh.error.WidgetError'));
    expect(isWidgetError({ [Symbol.for('mh.error.WidgetError')]: true })).toBe(true);
  });

  it('rejects other brands, brands that are not true, and non-objects', () => {
    const values = [
      { [Symbol.for('mh.error.OtherError')]: true },
      { [Symbol.for('mh.error.WidgetError')]: 1 },
      new Error('x'),
      'WidgetError',
      null,
      undefined,
    ];
    expect(values.map(isWidgetError)).toEqual([false, false, false, false, false, false]);
  });

  it('answers false instead of throwing for a Proxy whose trap throws', () => {
    const hostile = new Proxy(
      {},
      {
        get() {
          throw new Error('trap');
        },
      },
    );
    expect(isWidgetError(hostile)).toBe(false);
  });
});
