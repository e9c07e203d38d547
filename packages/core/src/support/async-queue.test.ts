import { describe, expect, it } from 'vitest';
import { AsyncQueue } from './async-queue.js';

describe('AsyncQueue', () => {
  it('delivers pushed items in order', async () => {
    const queue = new AsyncQueue<number>();
    queue.push(1);
    queue.push(2);
    expect([await queue.next(), await queue.next()]).toEqual([
      { value: 1, done: false },
      { value: 2, done: false },
    ]);
  });

  it('resolves a waiting consumer when an item is pushed', async () => {
    const queue = new AsyncQueue<string>();
    const waiting = queue.next();
    queue.push('late');
    await expect(waiting).resolves.toEqual({ value: 'late', done: false });
  });

  it('drains the items pushed before close, then reports done', async () => {
    const queue = new AsyncQueue<number>();
    queue.push(1);
    queue.close();
    expect([await queue.next(), await queue.next()]).toEqual([
      { value: 1, done: false },
      { value: undefined, done: true },
    ]);
  });

  it('ends a waiting consumer on close', async () => {
    const queue = new AsyncQueue<number>();
    const waiting = queue.next();
    queue.close();
    await expect(waiting).resolves.toEqual({ value: undefined, done: true });
  });

  it('ignores pushes after close', async () => {
    const queue = new AsyncQueue<number>();
    queue.close();
    queue.push(1);
    await expect(queue.next()).resolves.toEqual({ value: undefined, done: true });
  });

  it('delivers the items pushed before fail, then the error', async () => {
    const queue = new AsyncQueue<number>();
    const error = new Error('executor crashed');
    queue.push(1);
    queue.fail(error);
    await expect(queue.next()).resolves.toEqual({ value: 1, done: false });
    await expect(queue.next()).rejects.toBe(error);
  });

  it('rejects a waiting consumer on fail', async () => {
    const queue = new AsyncQueue<number>();
    const waiting = queue.next();
    const error = new Error('boom');
    queue.fail(error);
    await expect(waiting).rejects.toBe(error);
  });

  it('ignores fail after close', async () => {
    const queue = new AsyncQueue<number>();
    queue.close();
    queue.fail(new Error('late'));
    await expect(queue.next()).resolves.toEqual({ value: undefined, done: true });
  });
});
