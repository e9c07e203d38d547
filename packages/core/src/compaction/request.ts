import type { ContentBlock, ImageBlock, Message, TextBlock } from '../messages/message.js';
import type { ContextMeter } from './context-meter.js';

/** Heads the user's request when a summary or drop note carries it verbatim. */
export const CARRIED_REQUEST_HEADER =
  "[The user's latest request, verbatim (compaction folded the message that held it):]";

/** What stands in for the header when a summariser's own text contains it. */
const QUOTED_HEADER = "[text resembling compaction's request header]";

/** How a compaction message records the request it carries (its `meta.request`). */
interface CarriedMeta {
  /** The request's leading text, as the message's first block ends with it. */
  readonly text: string;
  /** How many of the message's last blocks are the rest of the request (from its first image). */
  readonly blocks: number;
}

type RequestBlock = TextBlock | ImageBlock;

const isRequestBlock = (block: ContentBlock): block is RequestBlock =>
  block.type === 'text' || block.type === 'image';

/** The request a user message holds: its text and images; what a compaction message carried. */
function requestOf(message: Message): RequestBlock[] {
  if (message.meta?.compaction === undefined) return message.content.filter(isRequestBlock);
  const carried = message.meta.request as Partial<CarriedMeta> | undefined;
  if (typeof carried?.text !== 'string' || typeof carried.blocks !== 'number') return [];
  const { text, blocks } = carried;
  if (!Number.isInteger(blocks) || blocks < 0 || blocks >= message.content.length) return [];
  const rest = message.content.slice(message.content.length - blocks).filter(isRequestBlock);
  const lead: RequestBlock[] = text.length > 0 ? [{ type: 'text', text }] : [];
  return [...lead, ...rest];
}

/** A request to carry: its blocks and their estimated size. */
export interface CarriedRequest {
  readonly blocks: ContentBlock[];
  readonly tokens: number;
}

/**
 * The user's latest request, when compaction is about to fold it: the text and images of the
 * newest user message that has any (tool results never count: they are not the user's words), or
 * the request an earlier summary carried, if that message stands before `cut`. It is carried
 * whole when it estimates at most `maxTokens`; otherwise its text alone with a note of the images
 * left out, if that fits. A request in the kept tail, or one too big even as text (a pasted
 * document is summarised like the rest), is not carried.
 */
export function requestToCarry(
  history: readonly Message[],
  cut: number,
  maxTokens: number,
  meter: Pick<ContextMeter, 'estimateMessages'>,
): CarriedRequest | undefined {
  const fitting = (blocks: ContentBlock[]): CarriedRequest | undefined => {
    const tokens = meter.estimateMessages([{ id: 'request', role: 'user', content: blocks }]);
    return tokens <= maxTokens ? { blocks, tokens } : undefined;
  };
  for (let index = history.length - 1; index >= 0; index--) {
    const message = history[index] as Message;
    if (message.role !== 'user') continue;
    const request = requestOf(message);
    if (request.length === 0) {
      // A summary without a request ends the search: what came before it is summarised.
      if (message.meta?.compaction !== undefined) return undefined;
      continue;
    }
    if (index >= cut) return undefined;
    const whole = fitting(request);
    if (whole) return whole;
    const images = request.filter((block) => block.type === 'image').length;
    const texts: ContentBlock[] = request.filter((block) => block.type === 'text');
    if (images === 0 || texts.length === 0) return undefined;
    const note = `[${images} image${images === 1 ? '' : 's'} of the request ${images === 1 ? 'was' : 'were'} not kept: over the budget for carrying it]`;
    return fitting([...texts, { type: 'text', text: note }]);
  }
  return undefined;
}

/**
 * A compaction message's content and meta: its own `text`, then the request (if any) under its
 * header. The request's leading text joins the first block, so a text-only request leaves one
 * text block (a plain string for OpenAI Chat); its other blocks follow in order.
 */
export function withRequest(
  text: string,
  stage: 'summary' | 'drop',
  request: readonly ContentBlock[] | undefined,
): Pick<Message, 'content' | 'meta'> {
  // Only compaction writes the header: a summariser quoting it cannot pose as the user.
  const own = text.split(CARRIED_REQUEST_HEADER).join(QUOTED_HEADER);
  if (!request || request.length === 0)
    return {
      content: [{ type: 'text', text: own }],
      meta: { compaction: stage, cacheBreakpoint: true },
    };
  let lead = 0;
  while (request[lead]?.type === 'text') lead++;
  const leadText = request
    .slice(0, lead)
    .map((block) => (block as TextBlock).text)
    .join('\n\n');
  const first = `${own}\n\n${CARRIED_REQUEST_HEADER}${leadText.length > 0 ? `\n${leadText}` : ''}`;
  const rest = request.slice(lead);
  const carried: CarriedMeta = { text: leadText, blocks: rest.length };
  return {
    content: [{ type: 'text', text: first }, ...rest],
    meta: { compaction: stage, cacheBreakpoint: true, request: carried },
  };
}
