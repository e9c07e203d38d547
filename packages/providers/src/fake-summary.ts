import { extractIdentifiers, type ModelRequest, messageText } from '@mh/core';
import type { TurnContent } from './stream-turn.js';

/** User lines quoted in a fake summary, at most. */
const MAX_USER_LINES = 6;
/** Characters kept of each quoted line. */
const MAX_LINE_CHARS = 160;

/**
 * The fake model's answer to a compaction's summary request: an extractive, deterministic
 * summary of the transcript — what the user asked (quoted, shortened), which tools ran how often,
 * and the exact identifiers seen. Real models write better summaries; this one lets anyone watch
 * compaction offline.
 */
export function fakeSummary(request: ModelRequest): TurnContent {
  const source = request.messages.map(messageText).join('\n');
  const transcript = source.replace(/^<transcript>\n?|\n?<\/transcript>$/g, '');
  const lines = transcript.split('\n');
  const asked = lines
    .filter((line) => line.startsWith('[user] '))
    .slice(-MAX_USER_LINES)
    .map((line) => `- ${shorten(line.slice('[user] '.length))}`);
  const calls = new Map<string, number>();
  for (const line of lines) {
    const match = /^\[assistant called ([^\]]+)\]/.exec(line);
    if (match?.[1]) calls.set(match[1], (calls.get(match[1]) ?? 0) + 1);
  }
  const tools = [...calls].map(([name, count]) => `${name} ×${count}`).join(', ');
  const ids = extractIdentifiers(transcript, 150);
  const parts = [
    asked.length > 0 ? `The user asked:\n${asked.join('\n')}` : 'The user asked nothing yet.',
    tools ? `Tools used: ${tools}.` : 'No tools were used.',
  ];
  if (ids.length > 0) parts.push(`Identifiers: ${ids.join(', ')}`);
  return { text: parts.join('\n') };
}

function shorten(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= MAX_LINE_CHARS ? flat : `${flat.slice(0, MAX_LINE_CHARS - 1)}…`;
}
