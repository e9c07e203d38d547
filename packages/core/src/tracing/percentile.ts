/**
 * The `p`-th percentile of `values` by the nearest-rank method: sort ascending and take the value
 * of rank ⌈p/100 · n⌉ (1-based; rank 1 for p = 0). The result is always one of the observed
 * values, needs no interpolation, and is exact for small samples (the p95 of 10 values is the
 * largest). `undefined` for no values. `p` is clamped to [0, 100].
 */
export function percentile(values: readonly number[], p: number): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = values.slice().sort((a, b) => a - b);
  const clamped = Math.min(100, Math.max(0, p));
  const rank = Math.max(1, Math.ceil((clamped / 100) * sorted.length));
  return sorted[rank - 1];
}
