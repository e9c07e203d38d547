import { describe, expect, it } from 'vitest';
import { base64Bytes, describeContent } from './describe-content.js';

describe('describeContent', () => {
  it('passes text through', () => {
    expect(describeContent({ type: 'text', text: 'hi' })).toBe('hi');
  });

  it('describes an image instead of inlining it', () => {
    const data = Buffer.alloc(12345).toString('base64');
    expect(describeContent({ type: 'image', mimeType: 'image/png', data })).toBe(
      '[image: image/png, 12345 bytes]',
    );
  });

  it('describes audio and binary resources', () => {
    const data = Buffer.alloc(7).toString('base64');
    expect(describeContent({ type: 'audio', mimeType: 'audio/wav', data })).toBe(
      '[audio: audio/wav, 7 bytes]',
    );
    expect(
      describeContent({
        type: 'resource',
        resource: { uri: 'file:///x', blob: data, mimeType: 'a/b' },
      }),
    ).toBe('[resource: file:///x, a/b, 7 bytes]');
  });

  it('computes decoded base64 sizes', () => {
    for (const size of [0, 1, 2, 3, 100]) {
      expect(base64Bytes(Buffer.alloc(size).toString('base64'))).toBe(size);
    }
  });
});
