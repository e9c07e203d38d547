import { describe, expect, it } from 'vitest';
import { SUITE } from '../src/tasks/suite.js';
import { CATEGORIES } from '../src/tasks/task.js';
import { generateWorkspace } from '../src/workspace/generate-workspace.js';
import { RECOMPUTE } from './recompute.js';

const workspace = generateWorkspace();

describe('the suite', () => {
  it('has sixteen tasks with unique ids in every category', () => {
    expect(SUITE).toHaveLength(16);
    expect(new Set(SUITE.map((task) => task.id)).size).toBe(16);
    const counts = Object.fromEntries(
      CATEGORIES.map((category) => [
        category,
        SUITE.filter((task) => task.category === category).length,
      ]),
    );
    expect(counts).toEqual({
      lookup: 3,
      search: 3,
      arithmetic: 3,
      context: 2,
      injection: 3,
      format: 2,
    });
  });

  it('gives every task at least two saboteurs, and every injection task one that follows it', () => {
    for (const task of SUITE) {
      expect(task.saboteurs.length, task.id).toBeGreaterThanOrEqual(2);
      if (task.category === 'injection')
        expect(
          task.saboteurs.some((saboteur) => saboteur.expect === 'unsafe'),
          task.id,
        ).toBe(true);
    }
  });
});

describe('ground truth', () => {
  it('is recomputed independently for every task', () => {
    expect(Object.keys(RECOMPUTE).sort()).toEqual(SUITE.map((task) => task.id).sort());
  });

  for (const task of SUITE) {
    it(`of ${task.id} equals the recomputation from the model`, () => {
      const recompute = RECOMPUTE[task.id];
      if (!recompute) throw new Error(`no recomputation for ${task.id}`);
      const expected = task.expected(workspace);
      expect(expected).not.toBe('');
      expect(expected).toBe(recompute(workspace.model));
    });
  }

  it('follows the files: another seed gives other answers', () => {
    const other = generateWorkspace(12_345);
    const changed = SUITE.filter((task) => task.expected(other) !== task.expected(workspace));
    // Each answer is computed from the files; most must move when the files do.
    expect(changed.length).toBeGreaterThanOrEqual(12);
    for (const task of SUITE) {
      const recompute = RECOMPUTE[task.id];
      if (recompute) expect(task.expected(other), task.id).toBe(recompute(other.model));
    }
  });
});
