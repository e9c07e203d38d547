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

/** Histories lent to the loop by their owner; see `lendHistory`. */
const lent = new WeakSet<readonly unknown[]>();

/**
 * Lends `history` to the loop (`runLoop`'s `history`) by its owner, who keeps it to itself and
 * only appends to it: the run appends its messages to this array in place instead of copying it,
 * hands it back through `onSettled` (or the array a rewrite put in its place, lent in turn), and
 * its result's `messages` is a copy taken when first read. A prefix a run settled is then known
 * by the array alone, so the next run costs what it adds, not the length of the conversation.
 * Marks `history` append-only too (`markAppendOnly`). Returns `history`.
 */
export function lendHistory<T extends readonly unknown[]>(history: T): T {
  lent.add(history);
  return markAppendOnly(history);
}

/** Whether `history` was lent to the loop (`lendHistory`). */
export function isLent(history: readonly unknown[]): boolean {
  return lent.has(history);
}

/**
 * The accessors of a property holding the first `array.length` elements of `array` (as it is
 * now), copied when first read, then always that copy, which the reader may change or replace.
 * Nothing is copied for a reader that never looks. The caller's invariant: `array` is only
 * appended to from now on (a rewrite puts a new array in its place), so what it held now is still
 * there however late the copy is taken.
 */
export function prefixCopyOnRead<T>(array: readonly T[]): {
  get(): readonly T[];
  set(value: readonly T[]): void;
} {
  const length = array.length;
  let copy: readonly T[] | undefined;
  return {
    get: () => {
      copy ??= array.slice(0, length);
      return copy;
    },
    set: (value) => {
      copy = value;
    },
  };
}
