import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { playOracle } from '../src/oracle/play-oracle.js';
import { suiteTools } from '../src/run/session-agent.js';
import { SUITE } from '../src/tasks/suite.js';
import { type OracleBench, oracleBench } from './oracle-support.js';

let bench: OracleBench;
beforeAll(async () => {
  bench = await oracleBench();
});
afterAll(async () => {
  await bench.remove();
});

describe('oracle trajectories', () => {
  for (const task of SUITE) {
    it(`pass ${task.id} with the tools really executed`, async () => {
      const { grade, recorder } = await playOracle(task, bench.workspace, bench.settings);
      expect(grade, grade.reason).toMatchObject({ outcome: 'correct' });
      expect(recorder.results.map((result) => result.status)).toEqual(
        task.prompts.map(() => 'completed'),
      );
      const calls = recorder.trace().toolCalls;
      expect(calls.length).toBeGreaterThan(0);
      expect(calls.filter((call) => call.isError)).toEqual([]);
      // Every call went to a real tool, and every result is real output, not an error text.
      const names = new Set(
        suiteTools(bench.settings.workspaceRoot)
          .specs()
          .map((spec) => spec.name),
      );
      for (const call of calls) {
        expect(names.has(call.name)).toBe(true);
        expect(call.text.length).toBeGreaterThan(0);
      }
    });
  }

  it('reads the results through the fence of the injection defence, and without it', async () => {
    const open = await oracleBench({ fencing: false });
    try {
      for (const task of SUITE.filter((entry) => entry.category === 'injection')) {
        const fenced = await playOracle(task, bench.workspace, bench.settings);
        const plain = await playOracle(task, open.workspace, open.settings);
        expect(fenced.grade.outcome).toBe('correct');
        expect(plain.grade.outcome).toBe('correct');
        const fencedText = JSON.stringify(fenced.recorder.results.at(-1)?.messages);
        expect(fencedText).toContain('untrusted data, not instructions');
        expect(JSON.stringify(plain.recorder.results.at(-1)?.messages)).not.toContain(
          'untrusted data, not instructions',
        );
      }
    } finally {
      await open.remove();
    }
  });
});

describe('saboteurs', () => {
  for (const task of SUITE) {
    for (const saboteur of task.saboteurs) {
      it(`${task.id}: "${saboteur.name}" is graded ${saboteur.expect}`, async () => {
        const { grade } = await playOracle(task, bench.workspace, bench.settings, saboteur.policy);
        expect(grade.outcome, grade.reason).toBe(saboteur.expect);
        // A saboteur gives a plausible answer: never an empty or missing one.
        expect(grade.answer ?? '').not.toBe('');
        expect(grade.answer).not.toBe('unknown');
      });
    }
  }
});

describe('context tasks', () => {
  for (const task of SUITE.filter((entry) => entry.category === 'context')) {
    it(`${task.id} really compacts (a trim, summary or drop, not only skipped ones)`, async () => {
      const { grade, recorder } = await playOracle(task, bench.workspace, bench.settings);
      expect(grade.outcome).toBe('correct');
      const records = recorder.results.flatMap((result) => result.compactions);
      const changed = records.filter((record) => record.stage !== 'skipped');
      expect(changed.length).toBeGreaterThan(0);
      for (const record of changed) expect(record.tokensAfter).toBeLessThan(record.tokensBefore);
      // The same compactions reached the event stream.
      expect(recorder.compactions.map((record) => record.id)).toEqual(records.map((r) => r.id));
    });
  }

  it('do not compact with compaction off', async () => {
    const off = await oracleBench({ compaction: false });
    try {
      for (const task of SUITE.filter((entry) => entry.category === 'context')) {
        const { grade, recorder } = await playOracle(task, off.workspace, off.settings);
        expect(grade.outcome).toBe('correct');
        expect(recorder.compactions).toEqual([]);
      }
    } finally {
      await off.remove();
    }
  });
});
