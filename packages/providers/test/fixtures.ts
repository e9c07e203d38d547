import { readFileSync } from 'node:fs';

/** Reads a file of `src/__fixtures__/` (copied byte-for-byte from ../shared/fixtures, licences beside). */
export function readFixture(name: string): string {
  return readFileSync(new URL(`../src/__fixtures__/${name}`, import.meta.url), 'utf8');
}

/**
 * Turns a vercel/ai `*.chunks.txt` file (one JSON `data:` payload per line) into SSE wire bodies,
 * one per HTTP response: a file holding several responses is split where `startType` begins a
 * new one. With `eventLines`, an `event: <type>` line is rebuilt from each payload's `type`
 * (Anthropic and OpenAI Responses); Chat Completions streams end with `data: [DONE]`.
 */
export function chunksToSse(
  text: string,
  options: { startType?: string; eventLines?: boolean; done?: boolean } = {},
): string[] {
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  const responses: string[][] = [];
  for (const line of lines) {
    const type = (JSON.parse(line) as { type?: string }).type;
    if (
      responses.length === 0 ||
      (options.startType !== undefined && type === options.startType && responses.at(-1)?.length)
    ) {
      responses.push([]);
    }
    const event = options.eventLines && type ? `event: ${type}\n` : '';
    responses.at(-1)?.push(`${event}data: ${line}\n\n`);
  }
  return responses.map((events) => events.join('') + (options.done ? 'data: [DONE]\n\n' : ''));
}
