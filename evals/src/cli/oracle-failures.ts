import type { Report } from '@mh/eval';

/**
 * The lines naming the failed oracle runs of a dry run, one per task (`task (repeat 2): why`), or
 * an empty list when every run passed. The oracle plays each task's known trajectory, so any
 * failure is a broken harness, task or grader, never a weak model.
 */
export function oracleFailures(report: Pick<Report, 'runs'>): string[] {
  const byTask = new Map<string, { repeats: number[]; why: string }>();
  for (const run of report.runs) {
    if (run.passed) continue;
    const why =
      run.error !== undefined
        ? `${run.error.name}: ${run.error.message}`
        : (run.checkError ?? run.check?.reason ?? `ended ${run.status}`);
    const entry = byTask.get(run.case);
    if (entry) entry.repeats.push(run.repeat);
    else byTask.set(run.case, { repeats: [run.repeat], why });
  }
  return [...byTask].map(([task, { repeats, why }]) => {
    const shown = why.replace(/\s+/g, ' ').trim();
    const sorted = repeats.sort((a, b) => a - b).map((repeat) => repeat + 1);
    return `${task} (repeat${sorted.length === 1 ? '' : 's'} ${sorted.join(', ')}): ${shown.length > 160 ? `${shown.slice(0, 159)}…` : shown}`;
  });
}
