import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { ConfigError } from '@mh/core';
import { type Comparison, compareReports } from './compare/comparison.js';
import type { CompareOptions } from './compare/types.js';
import { parseReportData } from './data.js';
import { renderHtmlReport } from './html/page.js';
import { renderReport } from './render.js';
import { type ReportSummary, summarise } from './summary.js';
import type { CaseRun, ReportData, ReportMeta } from './types.js';

/** Options of `Report.renderHtml` and `Report.saveHtml`. */
export interface HtmlReportOptions {
  /** A baseline: the page then shows the comparison with it (regressed, improved, cost, p95). */
  readonly baseline?: Report;
  /** How to compare with the baseline (`Report.compare`'s options). */
  readonly compare?: CompareOptions;
  /** The page's title (default `Eval report`). */
  readonly title?: string;
}

/**
 * The result of an eval: every session's record, a summary (success rate with its Wilson
 * interval, completion rate, latency, turns, tokens, cache hits, cost, per tag, failure clusters),
 * a terminal rendering, JSON persistence, and comparison with a baseline.
 * @example
 * const report = await runner.run();
 * console.log(report.render());
 * await report.save('reports/eval.json');
 * await report.saveHtml('reports/eval.html', { baseline: await Report.load('baseline.json') });
 * const comparison = report.compare(await Report.load('baseline.json'), { tolerance: 0.34 });
 * if (!comparison.ok) process.exitCode = 1;
 */
export class Report {
  /** Every session, ordered by case then repeat. */
  readonly runs: readonly CaseRun[];
  /** When and how it ran. */
  readonly meta: ReportMeta;
  #summary: ReportSummary | undefined;

  constructor(runs: readonly CaseRun[], meta: ReportMeta) {
    // Validates both through the same path a saved file takes.
    const data = parseReportData({ format: 'mh-eval-report', version: 1, meta, runs });
    this.runs = Object.freeze([...data.runs]);
    this.meta = Object.freeze({ ...data.meta, labels: Object.freeze({ ...data.meta.labels }) });
  }

  /** The summary (computed once). */
  get summary(): ReportSummary {
    this.#summary ??= summarise(this.runs);
    return this.#summary;
  }

  /** The report for a terminal. */
  render(): string {
    return renderReport(this.summary, this.meta, this.runs);
  }

  /** The report as saved (plain JSON data). */
  toJSON(): ReportData {
    return { format: 'mh-eval-report', version: 1, meta: this.meta, runs: this.runs };
  }

  /** Writes the report as JSON to `path` (creating its folder). */
  async save(path: string): Promise<void> {
    if (typeof path !== 'string' || path === '')
      throw new ConfigError('path', 'expected a file path');
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, `${JSON.stringify(this.toJSON(), null, 2)}\n`, 'utf8');
  }

  /**
   * The report as one self-contained HTML page (nothing fetched, every string escaped, readable
   * without JavaScript): rates with Wilson intervals per case and tag, failure clusters with
   * evidence, the comparison with `options.baseline`, and each failed run's span tree and
   * conversation.
   */
  renderHtml(options: HtmlReportOptions = {}): string {
    if (options === null || typeof options !== 'object')
      throw new ConfigError('options', 'expected { baseline?, compare?, title? }');
    const { baseline, compare, title } = options;
    if (title !== undefined && (typeof title !== 'string' || title === ''))
      throw new ConfigError('options.title', 'expected a non-empty string');
    const comparison = baseline === undefined ? undefined : this.compare(baseline, compare);
    return renderHtmlReport(this.summary, this.meta, this.runs, comparison, title);
  }

  /** Writes `renderHtml(options)` to `path` (creating its folder). */
  async saveHtml(path: string, options: HtmlReportOptions = {}): Promise<void> {
    if (typeof path !== 'string' || path === '')
      throw new ConfigError('path', 'expected a file path');
    const page = this.renderHtml(options);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, page, 'utf8');
  }

  /** Reads a report saved by `save`; a `ConfigError` names what is wrong with the file. */
  static async load(path: string): Promise<Report> {
    if (typeof path !== 'string' || path === '')
      throw new ConfigError('path', 'expected a file path');
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw new ConfigError(
        'path',
        code === 'ENOENT'
          ? `${path}: no report here (ENOENT)`
          : `${path}: cannot read the file (${code})`,
        { cause: error },
      );
    }
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch (error) {
      throw new ConfigError('path', `${path} is not JSON: ${String(error)}`, { cause: error });
    }
    return Report.fromJSON(data);
  }

  /** A report from saved data (`toJSON()` output, parsed JSON). */
  static fromJSON(data: unknown): Report {
    const parsed = parseReportData(data);
    return new Report(parsed.runs, parsed.meta);
  }

  /**
   * Compares this report (the current run) with `baseline`: regressed and improved cases, cost
   * and p95 change, and `ok` for a CI gate. See `CompareOptions` for the two gates.
   */
  compare(baseline: Report, options?: CompareOptions): Comparison {
    if (!(baseline instanceof Report))
      throw new ConfigError('baseline', 'expected a Report (Report.load(path) reads one)');
    return compareReports(baseline, this, options);
  }
}
