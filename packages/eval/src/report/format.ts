import type { Interval } from './stats.js';

/** A proportion as a percentage with one decimal, e.g. `91.7%`. */
export function percent(value: number): string {
  return `${(value * 100).toFixed(1)}%`;
}

/** An interval as percentages, e.g. `[80.4–96.7%]`; `[–]` when there is none. */
export function interval(value: Interval | undefined): string {
  if (!value) return '[–]';
  return `[${(value.low * 100).toFixed(1)}–${(value.high * 100).toFixed(1)}%]`;
}

/** A duration, e.g. `12 ms` or `3.4 s`; `–` when unknown. */
export function duration(ms: number | undefined): string {
  if (ms === undefined) return '–';
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/** An amount in USD with enough digits for fractions of a cent. */
export function usd(value: number): string {
  if (value === 0) return '$0';
  return value >= 1 ? `$${value.toFixed(2)}` : `$${value.toPrecision(3)}`;
}

/** An integer with thousands separators. */
export function count(value: number): string {
  return Math.round(value).toLocaleString('en-US');
}

/** A count and its noun, singular for one: `1 case`, `3 cases`, `1,200 calls`. */
export function counted(value: number, noun: string): string {
  return `${count(value)} ${noun}${value === 1 ? '' : 's'}`;
}

/** A signed relative change, e.g. `+12.0%`; `–` when the base is zero and so is the new value. */
export function change(before: number, after: number): string {
  if (before === 0) return after === 0 ? '±0' : 'new';
  const ratio = after / before - 1;
  return `${ratio >= 0 ? '+' : ''}${(ratio * 100).toFixed(1)}%`;
}

/** Pads `text` to `width` characters. */
export function pad(text: string, width: number): string {
  return text.length >= width ? text : text + ' '.repeat(width - text.length);
}
