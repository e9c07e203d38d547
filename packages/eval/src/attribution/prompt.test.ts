import { describe, expect, it } from 'vitest';
import { asksBack } from './prompt.js';

describe('asksBack', () => {
  it.each([
    'Which order do you mean?',
    'Could you give me the file name? I can then read it.',
    'Do you want the total with or without tax?',
    'Would you like me to look the order up?',
    'I found two customers named Hale. Which one do you mean: Margaret or Tom?',
  ])('hears a question back to the user: %s', (text) => {
    expect(asksBack(text)).toBe(true);
  });

  it.each([
    'It is $40.00. Anything else I can help with?',
    'The total is $80.00. Is there anything else I can help you with?',
    'Done: the file is config/app.yaml. Let me know if you have any other questions?',
    'The answer is 42. Need anything more?',
    'The order shipped.\nANSWER: shipped\nShall I check another one?',
    'The total is $12.',
  ])('does not take an answer with a closing offer for asking back: %s', (text) => {
    expect(asksBack(text)).toBe(false);
  });
});
