import { describe, expect, it } from 'vitest';
import { ConfigError } from '../errors.js';
import { fieldOf } from '../testing/field-of.js';
import { validateHistory } from './history.js';
import { assertMessages } from './shape.js';

function problemField(value: unknown): string | undefined {
  return fieldOf(() => assertMessages(value));
}

describe('assertMessages', () => {
  it('accepts well-formed messages of every block type', () => {
    expect(
      problemField([
        {
          id: 'u',
          role: 'user',
          content: [
            { type: 'text', text: 'hi' },
            { type: 'image', mediaType: 'image/png', data: 'AA==' },
          ],
        },
        {
          id: 'a',
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'hm', signature: 's' },
            { type: 'tool_use', id: 'c', name: 't', input: {} },
          ],
        },
        {
          id: 'r',
          role: 'user',
          content: [
            {
              type: 'tool_result',
              toolUseId: 'c',
              content: [{ type: 'text', text: 'ok' }],
              isError: false,
            },
          ],
        },
      ]),
    ).toBeUndefined();
  });

  it('names the history when it is not an array', () => {
    expect(problemField({})).toBe('history');
  });

  it('names a bad role', () => {
    expect(problemField([{ id: 'x', role: 'system', content: [] }])).toBe('history[0].role');
  });

  it('names a block field deep inside a tool result', () => {
    const history = [
      {
        id: 'a',
        role: 'assistant',
        content: [{ type: 'tool_use', id: 'c', name: 't', input: {} }],
      },
      {
        id: 'r',
        role: 'user',
        content: [
          {
            type: 'tool_result',
            toolUseId: 'c',
            content: [{ type: 'text', text: 5 }],
            isError: false,
          },
        ],
      },
    ];
    expect(problemField(history)).toBe('history[1].content[0].content[0].text');
  });

  it('names an unknown block type', () => {
    expect(problemField([{ id: 'u', role: 'user', content: [{ type: 'video' }] }])).toBe(
      'history[0].content[0].type',
    );
  });

  it('makes validateHistory reject malformed input with a ConfigError instead of a TypeError', () => {
    expect(() => validateHistory([{ role: 'user' }] as never)).toThrow(ConfigError);
  });
});

describe('assertMessages on optional block fields', () => {
  it.each([
    [{ type: 'thinking', thinking: 'x', signature: 5 }, 'history[0].content[0].signature'],
    [{ type: 'thinking', thinking: 'x', redacted: null }, 'history[0].content[0].redacted'],
    [
      { type: 'tool_use', id: 'c', name: 't', input: {}, rawInput: {} },
      'history[0].content[0].rawInput',
    ],
  ])('rejects %j naming %s', (block, field) => {
    const history = [{ id: 'a', role: 'assistant', content: [block] }];
    expect(() => assertMessages(history)).toThrow(expect.objectContaining({ field }));
  });
});
