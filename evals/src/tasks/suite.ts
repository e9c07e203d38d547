import { ConfigError } from '@mh/core';
import { ARITHMETIC_TASKS } from './arithmetic-tasks.js';
import { CONTEXT_TASKS } from './context-tasks.js';
import { FORMAT_TASKS } from './format-tasks.js';
import { INJECTION_TASKS } from './injection-tasks.js';
import { LOOKUP_TASKS } from './lookup-tasks.js';
import { SEARCH_TASKS } from './search-tasks.js';
import type { Task } from './task.js';

/** The sixteen tasks of the suite, by category. */
export const SUITE: readonly Task[] = [
  ...LOOKUP_TASKS,
  ...SEARCH_TASKS,
  ...ARITHMETIC_TASKS,
  ...CONTEXT_TASKS,
  ...INJECTION_TASKS,
  ...FORMAT_TASKS,
];

/**
 * The tasks `filter` selects: comma-separated task ids, categories or id prefixes, e.g.
 * `lookup,injection-oncall-name`. Throws `ConfigError` naming `--cases` when one selects nothing.
 */
export function selectTasks(filter: string | undefined, tasks: readonly Task[] = SUITE): Task[] {
  if (filter === undefined || filter.trim() === '') return [...tasks];
  const terms = filter
    .split(',')
    .map((term) => term.trim())
    .filter((term) => term !== '');
  const chosen = new Set<Task>();
  for (const term of terms) {
    const hits = tasks.filter(
      (task) => task.id === term || task.category === term || task.id.startsWith(term),
    );
    if (hits.length === 0)
      throw new ConfigError('--cases', `${term} matches no task id or category`);
    for (const hit of hits) chosen.add(hit);
  }
  return tasks.filter((task) => chosen.has(task));
}

/** The task with `id`; throws `ConfigError` when there is none. */
export function taskById(id: string, tasks: readonly Task[] = SUITE): Task {
  const task = tasks.find((candidate) => candidate.id === id);
  if (!task) throw new ConfigError('case', `no task ${id}`);
  return task;
}
