/**
 * The brand an error class named `name` carries: the registered symbol `mh.error.<name>`. It is
 * the same in every copy of mini-harness in one process and in every release, so it must never
 * change for an existing class (an error from an older copy would no longer be recognised).
 */
export const errorBrand = (name: string): symbol => Symbol.for(`mh.error.${name}`);

/**
 * A type guard for the errors branded `name` (`HarnessError`'s constructor brands an error with
 * the `brandName` of every class of its chain), usable unbound (`errors.filter(X.isInstance)`).
 * Each error class's static `isInstance` is one, because two copies of a package in one install
 * break `instanceof`. Never throws: a value whose property lookup throws is no branded error.
 */
export function brandCheck<T>(name: string): (value: unknown) => value is T {
  const symbol = errorBrand(name);
  return (value: unknown): value is T => {
    if (typeof value !== 'object' || value === null) return false;
    // A thrown Proxy's trap may throw: such a value is no mini-harness error, and asking must not throw.
    try {
      return (value as Record<symbol, unknown>)[symbol] === true;
    } catch {
      return false;
    }
  };
}
