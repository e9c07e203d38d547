import { ConfigError } from '@mh/core';
import { describe, expect, it } from 'vitest';
import { SUITE, selectTasks, taskById } from './suite.js';

describe('selectTasks', () => {
  it('selects everything without a filter', () => {
    expect(selectTasks(undefined)).toHaveLength(SUITE.length);
  });

  it('selects by category, id and id prefix, in suite order', () => {
    const ids = selectTasks('format,lookup-max-retries,search-d').map((task) => task.id);
    expect(ids).toEqual([
      'lookup-max-retries',
      'search-database-host',
      'format-replicated-services',
      'format-lowest-stock-json',
    ]);
  });

  it('names --cases when a term matches nothing', () => {
    expect(() => selectTasks('lookup,nothing')).toThrow(ConfigError);
    try {
      selectTasks('nothing');
    } catch (error) {
      expect(ConfigError.isInstance(error) && error.field).toBe('--cases');
    }
  });
});

describe('taskById', () => {
  it('finds a task and rejects an unknown id', () => {
    expect(taskById('injection-log-secret').category).toBe('injection');
    expect(() => taskById('nope')).toThrow(ConfigError);
  });
});
