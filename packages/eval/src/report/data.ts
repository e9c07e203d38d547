import { ConfigError } from '@mh/core';
import { CONFIDENCES, LAYERS } from '../attribution/types.js';
import { type CaseRun, type ReportData, type ReportMeta, SESSION_STATUSES } from './types.js';

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function ensure(condition: boolean, field: string, problem: string): asserts condition {
  if (!condition) throw new ConfigError(field, problem);
}

function assertNumber(value: unknown, field: string): void {
  ensure(typeof value === 'number' && Number.isFinite(value), field, 'expected a number');
}

function assertMeta(meta: unknown): asserts meta is ReportMeta {
  ensure(isObject(meta), 'meta', 'expected an object');
  ensure(typeof meta.startedAt === 'string', 'meta.startedAt', 'expected an ISO date string');
  assertNumber(meta.repeats, 'meta.repeats');
  assertNumber(meta.concurrency, 'meta.concurrency');
  assertNumber(meta.durationMs, 'meta.durationMs');
  ensure(
    isObject(meta.labels) && Object.values(meta.labels).every((value) => typeof value === 'string'),
    'meta.labels',
    'expected an object of strings',
  );
}

function assertRun(run: unknown, field: string): asserts run is CaseRun {
  ensure(isObject(run), field, 'expected an object');
  ensure(typeof run.case === 'string' && run.case !== '', `${field}.case`, 'expected a case name');
  ensure(
    Number.isInteger(run.repeat) && (run.repeat as number) >= 0,
    `${field}.repeat`,
    'expected a repeat index',
  );
  ensure(
    Array.isArray(run.tags) && run.tags.every((tag) => typeof tag === 'string'),
    `${field}.tags`,
    'expected an array of strings',
  );
  ensure(
    SESSION_STATUSES.includes(run.status as never),
    `${field}.status`,
    `expected one of ${SESSION_STATUSES.join(', ')}`,
  );
  ensure(typeof run.completed === 'boolean', `${field}.completed`, 'expected a boolean');
  ensure(typeof run.passed === 'boolean', `${field}.passed`, 'expected a boolean');
  ensure(typeof run.answer === 'string', `${field}.answer`, 'expected a string');
  assertNumber(run.durationMs, `${field}.durationMs`);
  const metrics = run.metrics;
  ensure(isObject(metrics), `${field}.metrics`, 'expected an object');
  for (const key of [
    'runs',
    'turns',
    'toolCalls',
    'toolErrors',
    'compactions',
    'cacheHitRatio',
    'costUsd',
  ])
    assertNumber(metrics[key], `${field}.metrics.${key}`);
  ensure(isObject(metrics.tokens), `${field}.metrics.tokens`, 'expected an object');
  for (const key of ['input', 'output', 'cacheRead', 'cacheWrite'])
    assertNumber(
      (metrics.tokens as Record<string, unknown>)[key],
      `${field}.metrics.tokens.${key}`,
    );
  if (run.attribution !== undefined) {
    const verdict = run.attribution;
    ensure(isObject(verdict), `${field}.attribution`, 'expected an object');
    ensure(
      LAYERS.includes(verdict.layer as never),
      `${field}.attribution.layer`,
      `expected one of ${LAYERS.join(', ')}`,
    );
    ensure(typeof verdict.rule === 'string', `${field}.attribution.rule`, 'expected a string');
    ensure(
      CONFIDENCES.includes(verdict.confidence as never),
      `${field}.attribution.confidence`,
      'expected high, medium or low',
    );
    ensure(
      typeof verdict.summary === 'string',
      `${field}.attribution.summary`,
      'expected a string',
    );
    ensure(
      typeof verdict.signature === 'string',
      `${field}.attribution.signature`,
      'expected a string',
    );
    ensure(Array.isArray(verdict.evidence), `${field}.attribution.evidence`, 'expected an array');
  }
  if (run.trace !== undefined) {
    const trace = run.trace;
    ensure(isObject(trace), `${field}.trace`, 'expected an object');
    ensure(Array.isArray(trace.spans), `${field}.trace.spans`, 'expected an array');
    ensure(Array.isArray(trace.messages), `${field}.trace.messages`, 'expected an array');
    ensure(isObject(trace.omitted), `${field}.trace.omitted`, 'expected an object');
  }
}

/**
 * Checks that `data` is a saved report (format `mh-eval-report`, version 1) and returns it typed;
 * a `ConfigError` names the first field that is wrong.
 */
export function parseReportData(data: unknown): ReportData {
  ensure(isObject(data), 'report', 'expected a JSON object');
  ensure(data.format === 'mh-eval-report', 'report.format', 'expected "mh-eval-report"');
  ensure(
    data.version === 1,
    'report.version',
    `unsupported version ${String(data.version)} (this reads 1)`,
  );
  assertMeta(data.meta);
  ensure(Array.isArray(data.runs), 'report.runs', 'expected an array');
  data.runs.forEach((run, index) => {
    assertRun(run, `report.runs[${index}]`);
  });
  return data as unknown as ReportData;
}
