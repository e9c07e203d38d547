/** Arrays their owner only appends to; see `markAppendOnly`. */
const appendOnly = new WeakSet<readonly unknown[]>();

/**
 * Marks `array` as one its owner only appends to: nothing below its current length ever changes,
 * and a rewrite puts a new array in its place. Whoever saw a prefix of it (the context meter) may
 * then skip checking that prefix again. Returns `array`.
 */
export function markAppendOnly<T extends readonly unknown[]>(array: T): T {
  appendOnly.add(array);
  return array;
}

/** Whether `array` was marked by `markAppendOnly`. */
export function isAppendOnly(array: readonly unknown[]): boolean {
  return appendOnly.has(array);
}
