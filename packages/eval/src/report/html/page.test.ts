import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '@mh/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  HOSTILE_ANSWER,
  HOSTILE_CASE,
  runFixtureSuite,
} from '../../../test/html-report-fixture.js';
import { caseRun, caseRuns, reportOf } from '../../../test/report-fixture.js';
import type { Report } from '../report.js';
import { escapeHtml, html } from './kit.js';

let dir: string;
let baseline: Report;
let current: Report;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mh-eval-html-'));
  baseline = await runFixtureSuite('v1');
  current = await runFixtureSuite('v2');
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function count(text: string, pattern: RegExp): number {
  return text.match(new RegExp(pattern.source, 'g'))?.length ?? 0;
}

function sha256(text: string): string {
  return `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
}

describe('html', () => {
  it('escapes interpolated strings but not nested html', () => {
    const inner = html`<b>${'<i>'}</b>`;
    expect(html`<p title="${'"x"'}">${inner}${['a&', undefined, false, null]}</p>`.value).toBe(
      '<p title="&quot;x&quot;"><b>&lt;i&gt;</b>a&amp;</p>',
    );
    expect(escapeHtml(`<'&">`)).toBe('&lt;&#39;&amp;&quot;&gt;');
  });
});

describe('Report.renderHtml', () => {
  it('shows a case name, tag and answer holding markup as text', () => {
    const page = current.renderHtml();
    expect(page).not.toContain(HOSTILE_CASE);
    expect(page).not.toContain(HOSTILE_ANSWER);
    expect(page).toContain(escapeHtml(HOSTILE_CASE));
    expect(page).toContain(escapeHtml(HOSTILE_ANSWER));
    expect(page).not.toContain('<b>tag');
    // The page's own script is its only one.
    expect(count(page, /<script/)).toBe(1);
  });

  it('escapes labels and the title too', () => {
    const page = reportOf([caseRun('a', 0, true)], {
      labels: { '<k>': '</code><script>x</script>' },
    }).renderHtml({ title: '<Title>' });
    expect(page).toContain('<title>&lt;Title&gt;</title>');
    expect(page).toContain('&lt;/code&gt;&lt;script&gt;x&lt;/script&gt;');
    expect(count(page, /<script/)).toBe(1);
  });

  it('loads nothing: no external reference, and a CSP that allows only its own style and script', () => {
    const page = current.renderHtml({ baseline });
    expect(page.match(/<[a-z][^>]*\s(?:src|srcset|action|poster|data)=[^>]*>/gi)).toBeNull();
    expect(page.match(/\shref="[^"]*"/g)?.every((link) => link.startsWith(' href="#'))).toBe(true);
    expect(page.match(/@import|url\(|<link|<iframe|<object|<embed|<img/gi)).toBeNull();
    const csp = page
      .match(/http-equiv="Content-Security-Policy" content="([^"]+)"/)?.[1]
      ?.replaceAll('&#39;', "'");
    expect(csp).toContain("default-src 'none'");
    const style = page.match(/<style>([\s\S]*?)<\/style>/)?.[1] ?? '';
    const script = page.match(/<script>([\s\S]*?)<\/script>/)?.[1] ?? '';
    expect(csp).toContain(`style-src ${sha256(style)}`);
    expect(csp).toContain(`script-src ${sha256(script)}`);
  });

  it('lists every case and tag with its rate and 95% Wilson interval', () => {
    const page = current.renderHtml();
    expect(count(page, /<tr class="case-row/)).toBe(5);
    expect(page).toMatch(
      /data-case="coin" data-outcome="flaky"><td>coin <span class="tag">flaky<\/span><\/td><td><span class="tag">math<\/span><\/td><td>1\/2<\/td><td>50\.0%<\/td><td>\[9\.5–90\.5%\]<\/td>/,
    );
    expect(page).toMatch(
      /<tr class="tag-row" data-tag="math"><td>math<\/td><td>3\/4<\/td><td>75\.0%<\/td><td>\[30\.1–95\.4%\]<\/td>/,
    );
  });

  it('lists failure clusters with layer, rule, evidence and links to their runs', () => {
    const page = current.renderHtml();
    expect(count(page, /<tr class="cluster-row"/)).toBe(current.summary.clusters.length);
    const tool = page.match(/<tr class="cluster-row" data-layer="tool">.*?<\/tr>/)?.[0] ?? '';
    expect(tool).toContain('<code>tool/runtime-error</code>');
    const link = tool.match(
      /<a href="#(run-0-span-[0-9a-f]{16})">span [0-9a-f]{16}, mh\.tool\.status<\/a>:<\/span> lookup_order error: .*ENOENT/,
    );
    expect(link).not.toBeNull();
    // The link leads to the failing tool span in the run's tree.
    expect(page).toContain(`<li class="span span-error" id="${link?.[1]}">`);
    expect(tool).toContain(
      '<a href="#run-0">order-total#0</a>, <a href="#run-1">order-total#1</a>',
    );
  });

  it('shows the baseline comparison only when a baseline is given', () => {
    expect(current.renderHtml()).not.toContain('id="baseline"');
    const page = current.renderHtml({ baseline });
    expect(page).toContain('Baseline comparison <span class="verdict bad">REGRESSED</span>');
    expect(page).toMatch(
      /<tr class="change-row change-regressed" data-case="order-total"><td>order-total<\/td><td>2\/2<\/td><td>0\/2<\/td>.*?tool\/runtime-error/,
    );
    expect(page).toMatch(/<tr class="change-row change-improved" data-case="greeting">/);
    expect(page).toMatch(/data-metric="cost"><td>cost per run<\/td><td>\$0\.000144<\/td>/);
    expect(page).toMatch(/data-metric="p95"><td>p95 latency<\/td><td>\d+ ms<\/td><td>\d+ ms<\/td>/);
  });

  it('passes compare options on to the comparison', () => {
    const page = current.renderHtml({ baseline, compare: { method: 'interval' } });
    expect(page).toContain('gate: interval (95% Newcombe difference)');
  });

  it('gives every failed run a collapsible trace, the first one open', () => {
    const page = current.renderHtml();
    const failed = current.runs.filter((run) => !run.passed).length;
    expect(count(page, /<details class="run"/)).toBe(failed);
    expect(count(page, /<details class="run"[^>]*\sopen/)).toBe(1);
    expect(page).toMatch(/<details class="run" id="run-0" data-case="order-total" open>/);
    expect(count(page, /<details class="spans"/)).toBe(failed);
    expect(count(page, /<details class="conversation"/)).toBe(failed);
  });

  it('says so when every run passed, and when a saved run has no trace', () => {
    expect(reportOf(caseRuns('sum', 3)).renderHtml()).toContain('<p>Every run passed.</p>');
    expect(reportOf([caseRun('sum', 0, false)]).renderHtml()).toContain('No trace kept');
  });

  it('refuses options that are not options', () => {
    const report = reportOf([caseRun('a', 0, true)]);
    expect(() => report.renderHtml(null as never)).toThrow(ConfigError);
    expect(() => report.renderHtml({ title: '' })).toThrow(/options\.title/);
    expect(() => report.renderHtml({ baseline: {} as never })).toThrow(/baseline/);
  });
});

describe('Report.saveHtml', () => {
  it('writes the page to a new folder', async () => {
    const path = join(dir, 'nested', 'report.html');
    await current.saveHtml(path, { baseline });
    expect(await readFile(path, 'utf8')).toBe(current.renderHtml({ baseline }));
    await expect(current.saveHtml('')).rejects.toThrow(/path/);
  });
});
