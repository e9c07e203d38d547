import { createHash } from 'node:crypto';

/** The page's stylesheet: system fonts only, so nothing is fetched. */
export const REPORT_CSS: string = `
:root { color-scheme: light; --bad: #b42318; --good: #067647; --muted: #667085; --line: #e4e7ec; }
* { box-sizing: border-box; }
[hidden] { display: none !important; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 0 auto; max-width: 1200px; padding: 16px 24px 48px; color: #101828; }
h1 { font-size: 22px; margin: 8px 0 4px; }
h2 { font-size: 17px; margin: 28px 0 8px; border-bottom: 1px solid var(--line); padding-bottom: 4px; }
h3 { font-size: 15px; margin: 16px 0 6px; }
h4 { font-size: 13px; margin: 10px 0 4px; }
table { border-collapse: collapse; width: 100%; margin: 6px 0 12px; }
th, td { text-align: left; padding: 4px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-weight: 600; background: #f9fafb; }
pre { margin: 0; white-space: pre-wrap; word-break: break-word; font: 12px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
code { font: 12px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
.muted { color: var(--muted); }
.bad { color: var(--bad); font-weight: 600; }
.good { color: var(--good); font-weight: 600; }
.verdict { font-size: 13px; padding: 1px 8px; border-radius: 10px; border: 1px solid currentColor; }
.tag { display: inline-block; font-size: 11px; padding: 0 6px; border-radius: 8px; background: #f2f4f7; margin-right: 2px; }
.layer { display: inline-block; font-size: 11px; font-weight: 600; padding: 0 6px; border-radius: 8px; background: #fef3f2; color: var(--bad); }
.layer-infra { background: #f2f4f7; color: #344054; }
.layer-model { background: #f4f3ff; color: #5925dc; }
.layer-tool { background: #fffaeb; color: #b54708; }
.layer-context { background: #eff8ff; color: #175cd3; }
.layer-prompt { background: #fdf2fa; color: #c11574; }
meter { width: 90px; height: 12px; }
tr.outcome-fail td:first-child { border-left: 3px solid var(--bad); }
tr.outcome-flaky td:first-child { border-left: 3px solid #f79009; }
tr.outcome-pass td:first-child { border-left: 3px solid var(--good); }
details.run { border: 1px solid var(--line); border-radius: 6px; margin: 8px 0; padding: 6px 10px; }
details.run > summary { cursor: pointer; }
details.run[open] > summary { margin-bottom: 6px; }
details.spans, details.conversation { margin: 8px 0; }
details.spans > summary, details.conversation > summary { cursor: pointer; font-weight: 600; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 2px 12px; margin: 4px 0; }
dl.facts dt { color: var(--muted); }
dl.facts dd { margin: 0; }
ul.tree, ul.tree ul { list-style: none; margin: 0; padding-left: 18px; border-left: 1px dotted #d0d5dd; }
ul.tree { padding-left: 4px; border: 0; }
li.span summary { cursor: pointer; }
li.span-error > details > summary .span-name { color: var(--bad); }
table.attrs { width: auto; margin: 4px 0 4px 16px; }
table.attrs th { font-weight: 400; color: var(--muted); background: none; }
ol.messages { list-style: none; padding: 0; margin: 0; }
li.message { border-left: 3px solid #d0d5dd; padding: 4px 10px; margin: 6px 0; }
li.role-assistant { border-left-color: #7a5af8; }
li.role-user { border-left-color: #2e90fa; }
.role { font-weight: 600; font-size: 12px; }
.block { margin: 2px 0; }
.block-tool_use, .block-tool_result { background: #f9fafb; padding: 4px 6px; border-radius: 4px; }
.block-error { background: #fef3f2; }
#filters { margin: 8px 0; display: flex; gap: 12px; align-items: center; }
#filters input[type=search] { padding: 4px 6px; width: 260px; }
`;

/**
 * Optional filtering for readers with JavaScript: shows the (hidden) filter bar and hides case
 * rows, change rows and failed runs that do not match. The page reads the same without it.
 */
export const REPORT_SCRIPT: string = `
(() => {
  const bar = document.getElementById('filters');
  if (!bar) return;
  bar.hidden = false;
  const text = bar.querySelector('input[type=search]');
  const failing = bar.querySelector('input[type=checkbox]');
  const apply = () => {
    const needle = text.value.trim().toLowerCase();
    for (const item of document.querySelectorAll('[data-case]')) {
      const name = (item.getAttribute('data-case') || '').toLowerCase();
      const passing = item.getAttribute('data-outcome') === 'pass';
      item.hidden = (needle !== '' && !name.includes(needle)) || (failing.checked && passing);
    }
  };
  text.addEventListener('input', apply);
  failing.addEventListener('change', apply);
})();
`;

/** The CSP source of an inline element's exact text, e.g. `'sha256-…'`. */
export function cspHash(text: string): string {
  return `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
}

/**
 * The page's Content-Security-Policy: nothing may be loaded from anywhere (`default-src 'none'`);
 * only the page's own stylesheet and script, by hash, may apply.
 */
export const REPORT_CSP: string = `default-src 'none'; style-src ${cspHash(REPORT_CSS)}; script-src ${cspHash(REPORT_SCRIPT)}; img-src data:; base-uri 'none'; form-action 'none'`;
