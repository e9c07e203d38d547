// The HTML report in a real browser: a report from a real eval run is loaded by headless Chromium
// (Debian's `chromium`) from a file:// URL with the network cut off; the rendered DOM is checked
// with and without JavaScript, and a screenshot is taken. Without Chromium the suite is skipped
// with a message, unless CI=true or MH_REQUIRE_CHROMIUM=1, where that fails.
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Report } from '../src/report/report.js';
import {
  CHROMIUM_SERVICE_HOST,
  chromiumRequired,
  findChromium,
  runHeadless,
} from './headless-chromium.js';
import { HOSTILE_CASE, runFixtureSuite } from './html-report-fixture.js';

// Each run works in its own folder (other runs of this suite may be going on at the same time);
// the page and the screenshot are then copied to reports/browser/ (ignored by git) for a person
// to look at, each by an atomic rename.
const chromium = findChromium();
const RUNS = chromium !== undefined || chromiumRequired();
const WORK = RUNS ? mkdtempSync(join(tmpdir(), 'mh-eval-html-browser-')) : tmpdir();
const KEEP = fileURLToPath(new URL('../reports/browser/', import.meta.url));
const PAGE = join(WORK, 'eval-report.html');
const SCREENSHOT = join(WORK, 'eval-report.png');
const NO_SCRIPT_PAGE = join(WORK, 'eval-report-no-script.html');
const FETCHING_PAGE = join(WORK, 'fetching-control.html');
const TITLE = 'the HTML eval report in headless Chromium';

function count(text: string, pattern: RegExp): number {
  return text.match(new RegExp(pattern.source, 'g'))?.length ?? 0;
}

/** The dumped DOM's element that starts at `open`, up to its closing `</details>` (not nested). */
function openRun(dom: string): string {
  const start = dom.search(/<details class="run"[^>]*\sopen/);
  expect(start, 'an expanded failed run').toBeGreaterThanOrEqual(0);
  const next = dom.indexOf('<details class="run"', start + 1);
  return dom.slice(start, next === -1 ? undefined : next);
}

if (!RUNS) {
  process.stderr.write(
    `\n[skipped: ${TITLE}] no chromium on PATH (apt-get install -y chromium, or set MH_CHROMIUM); CI=true or MH_REQUIRE_CHROMIUM=1 makes this a failure\n`,
  );
}

describe.skipIf(!RUNS)(TITLE, () => {
  let current: Report;
  let dom: string;
  let requestedHosts: readonly string[];

  beforeAll(async () => {
    if (!chromium)
      throw new Error('chromium is required (CI=true or MH_REQUIRE_CHROMIUM=1) but not on PATH');
    const baseline = await runFixtureSuite('v1');
    current = await runFixtureSuite('v2');
    await current.saveHtml(PAGE, { baseline });
    const run = await runHeadless(chromium, ['--dump-dom', pathToFileURL(PAGE).href]);
    dom = run.stdout;
    requestedHosts = run.requestedHosts;
  }, 120_000);

  afterAll(() => {
    mkdirSync(KEEP, { recursive: true });
    for (const file of [PAGE, SCREENSHOT].filter((path) => existsSync(path))) {
      const staged = join(KEEP, `.${basename(file)}.${process.pid}`);
      copyFileSync(file, staged);
      renameSync(staged, join(KEEP, basename(file)));
    }
    rmSync(WORK, { recursive: true, force: true });
  });

  it('renders a row per case with its rate and Wilson interval', () => {
    expect(count(dom, /<tr class="case-row/)).toBe(current.summary.byCase.length);
    expect(dom).toMatch(
      /data-case="order-total" data-outcome="fail"><td>order-total<\/td>.*?<td>0\/2<\/td><td>0\.0%<\/td><td>\[0\.0–65\.8%\]<\/td>/,
    );
    expect(dom).toMatch(/data-case="coin" data-outcome="flaky">/);
    expect(count(dom, /<tr class="tag-row"/)).toBe(3);
  });

  it('shows a case name and an answer holding markup as text, running none of it', () => {
    expect(dom).toContain(
      "&lt;script&gt;document.body.setAttribute('data-pwned','1')&lt;/script&gt;",
    );
    expect(dom).not.toMatch(/<body[^>]*data-pwned/);
    expect(dom).not.toMatch(/<img[^>]*pwned-img/);
    expect(dom).toContain('&lt;img id="pwned-img" src="x"&gt;');
    expect(current.summary.byCase.some((item) => item.case === HOSTILE_CASE)).toBe(true);
  });

  it('renders failure clusters with their layer and evidence', () => {
    expect(count(dom, /<tr class="cluster-row"/)).toBe(current.summary.clusters.length);
    expect(dom).toMatch(
      /<tr class="cluster-row" data-layer="tool">.*?tool\/runtime-error.*?ENOENT/s,
    );
  });

  it('renders the baseline comparison: regressed and improved cases, cost and p95', () => {
    expect(dom).toMatch(/<tr class="change-row change-regressed" data-case="order-total">/);
    expect(dom).toMatch(/<tr class="change-row change-improved" data-case="greeting">/);
    expect(dom).toMatch(/<tr class="metric-row" data-metric="cost">/);
    expect(dom).toMatch(/<tr class="metric-row" data-metric="p95"><td>p95 latency<\/td>/);
  });

  it('expands the first failed run with its span tree and conversation', () => {
    expect(count(dom, /<details class="run"/)).toBe(
      current.runs.filter((run) => !run.passed).length,
    );
    expect(count(dom, /<details class="run"[^>]*\sopen/)).toBe(1);
    const trace = openRun(dom);
    expect(trace).toMatch(/<details class="spans" open="">/);
    expect(trace).toMatch(
      /<span class="span-name">mh\.run<\/span>.*<ul>.*<span class="span-name">mh\.turn<\/span>.*<span class="span-name">mh\.tool<\/span>/s,
    );
    expect(trace).toMatch(/<li class="message role-user">.*What is the total of order A-1\?/s);
    expect(trace).toMatch(/<div class="block block-tool_result block-error">.*ENOENT/s);
  });

  it('runs its own filter script (the CSP lets it) and fetches nothing', () => {
    expect(dom).toMatch(/<form id="filters">/);
    expect(requestedHosts.filter((host) => !CHROMIUM_SERVICE_HOST.test(host))).toEqual([]);
  });

  it('would see a page that fetches (the check above can fail)', async () => {
    if (!chromium) throw new Error('no chromium');
    writeFileSync(
      FETCHING_PAGE,
      '<!doctype html><img src="http://example.org/x.png"><link rel="stylesheet" href="https://fonts.example.net/a.css">',
    );
    const run = await runHeadless(chromium, ['--dump-dom', pathToFileURL(FETCHING_PAGE).href]);
    expect(run.requestedHosts.filter((host) => !CHROMIUM_SERVICE_HOST.test(host)).sort()).toEqual([
      'example.org',
      'fonts.example.net',
    ]);
  });

  it('reads the same without JavaScript', async () => {
    if (!chromium) throw new Error('no chromium');
    // Headless --dump-dom needs JavaScript itself, so the page's own script is blocked instead: a
    // copy whose CSP allows no script is what a reader with JavaScript off gets.
    const page = readFileSync(PAGE, 'utf8');
    const blocked = page.replace(/script-src [^;]+;/, "script-src 'none';");
    expect(blocked).not.toBe(page);
    writeFileSync(NO_SCRIPT_PAGE, blocked);
    const { stdout } = await runHeadless(chromium, [
      '--dump-dom',
      pathToFileURL(NO_SCRIPT_PAGE).href,
    ]);
    expect(stdout).toMatch(/<form id="filters" hidden="">/);
    expect(count(stdout, /<tr class="case-row/)).toBe(current.summary.byCase.length);
    expect(count(stdout, /<tr class="cluster-row"/)).toBe(current.summary.clusters.length);
    expect(count(stdout, /<details class="run"[^>]*\sopen/)).toBe(1);
  });

  it('takes a screenshot of the page', async () => {
    if (!chromium) throw new Error('no chromium');
    await runHeadless(chromium, [
      `--screenshot=${SCREENSHOT}`,
      '--window-size=1280,2000',
      '--hide-scrollbars',
      pathToFileURL(PAGE).href,
    ]);
    const png = readFileSync(SCREENSHOT);
    expect(png.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
    // IHDR: width and height, big-endian, at bytes 16 and 20.
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([1280, 2000]);
    // A blank 1280×2000 page compresses to a few kB; text, tables and colours do not.
    expect(statSync(SCREENSHOT).size).toBeGreaterThan(40_000);
  });
});
