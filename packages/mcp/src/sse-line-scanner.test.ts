import { describe, expect, it } from 'vitest';
import { SseLineScanner } from './sse-line-scanner.js';

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);

describe('SseLineScanner', () => {
  it('remembers the last id and retry fields, across chunk boundaries', () => {
    const scanner = new SseLineScanner(1024);
    expect(scanner.push(bytes('retry: 250\nid: ev'))).toBe(true);
    expect(scanner.lastEventId).toBeUndefined();
    expect(scanner.push(bytes('-1\ndata: {}\n\nid:ev-2\r\n'))).toBe(true);
    expect(scanner.lastEventId).toBe('ev-2');
    expect(scanner.retryMs).toBe(250);
  });

  it('fails a line longer than the cap, even when it arrives in pieces', () => {
    const scanner = new SseLineScanner(10);
    expect(scanner.push(bytes('data: 1234'))).toBe(true);
    expect(scanner.push(bytes('5'))).toBe(false);
  });

  it('counts each line on its own', () => {
    const scanner = new SseLineScanner(10);
    expect(scanner.push(bytes('data: 123\ndata: 456\ndata: 789\n'))).toBe(true);
  });
});
