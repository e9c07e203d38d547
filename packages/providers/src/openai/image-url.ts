import type { ImageBlock } from '@mh/core';

/** An image block as the URL OpenAI's APIs take: a `data:` URL for inline base64, else its URL. */
export function imageUrl(image: ImageBlock): string {
  return image.data !== undefined
    ? `data:${image.mediaType};base64,${image.data}`
    : (image.url ?? '');
}
