import type { Interval } from '@mh/eval';

/** A proportion as a whole percent: `85%`. */
export function percent(value: number): string {
  return `${Math.round(value * 100)}%`;
}

/** An interval as whole percents: `72–93%`; `–` without one. */
export function percentRange(interval: Interval | undefined): string {
  if (!interval) return '–';
  return `${Math.round(interval.low * 100)}–${Math.round(interval.high * 100)}%`;
}

/** US dollars: four decimals under a dollar, two above. */
export function usd(value: number): string {
  return value < 1 ? `$${value.toFixed(4)}` : `$${value.toFixed(2)}`;
}

/** A count with thousands separators. */
export function count(value: number): string {
  return Math.round(value).toLocaleString('en-US');
}

/** Milliseconds for people: `850 ms`, `12.3 s`, `4.1 min`; `–` when unknown. */
export function duration(ms: number | undefined): string {
  if (ms === undefined) return '–';
  if (ms < 1_000) return `${Math.round(ms)} ms`;
  if (ms < 120_000) return `${(ms / 1_000).toFixed(1)} s`;
  return `${(ms / 60_000).toFixed(1)} min`;
}

/** A markdown table. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const cellText = (cell: string): string => cell.replace(/\|/g, '\\|').replace(/\n/g, ' ');
  return [
    `| ${header.map(cellText).join(' | ')} |`,
    `|${header.map(() => '---').join('|')}|`,
    ...rows.map((row) => `| ${row.map(cellText).join(' | ')} |`),
  ];
}
