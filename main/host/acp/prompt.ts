import type { ContentBlock } from '@agentclientprotocol/sdk';

// An ACP prompt (content blocks) as Deft's prompt: text, with the editor's embedded resources as context after it and
// links as mentions the model can Read (through the path guard: the host itself reads no file). Images are saved as
// the session's attachments by the caller.

export interface PromptParts {
  text: string;
  images: Array<{ name: string; data: string }>;
}

const EXTENSIONS: Record<string, string> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/gif': 'gif', 'image/webp': 'webp' };

export function promptParts(blocks: readonly ContentBlock[]): PromptParts {
  const text: string[] = [];
  const context: string[] = [];
  const images: PromptParts['images'] = [];
  for (const block of blocks) {
    switch (block.type) {
      case 'text':
        text.push(block.text);
        break;
      case 'resource_link':
        text.push(`@${linkTarget(block.uri)}`);
        break;
      case 'resource': {
        const resource = block.resource;
        if ('text' in resource) context.push(contextBlock(resource.uri, resource.text));
        else text.push(`@${linkTarget(resource.uri)}`);
        break;
      }
      case 'image': {
        const extension = EXTENSIONS[block.mimeType];
        if (!extension) throw new Error(`Images of type ${block.mimeType} are not supported; send PNG, JPEG, GIF or WebP.`);
        images.push({ name: `image-${images.length + 1}.${extension}`, data: block.data });
        break;
      }
      case 'audio':
        throw new Error('Deft does not take audio in prompts.');
    }
  }
  const message = text.join(' ').trim();
  return { text: context.length ? `${message}\n\n${context.join('\n\n')}` : message, images };
}

/** A file URI as the path the model reads; any other URI as it is. */
function linkTarget(uri: string): string {
  if (!uri.startsWith('file://')) return uri;
  try {
    return decodeURIComponent(new URL(uri).pathname);
  } catch {
    return uri;
  }
}

function contextBlock(uri: string, text: string): string {
  const fence = '`'.repeat(Math.max(3, ...[...text.matchAll(/`+/g)].map((m) => m[0].length + 1)));
  return `Context from the editor (${linkTarget(uri)}):\n${fence}\n${text}\n${fence}`;
}
