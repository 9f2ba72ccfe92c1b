import { TRUNCATION_MARKER, headOf } from '#contract/output-limits';
import type { ToolResult } from '#contract/tool';
import type { ContentPart } from '#contract/model';

/** What the model may read of one MCP result: text characters, and bytes of images. */
export const MCP_MAX_CHARS = 100_000;
export const MCP_MAX_BINARY_BYTES = 10 * 1024 * 1024;

/** The parts of an MCP `CallToolResult` this converter reads (the SDK's type, loosely: servers vary). */
export interface McpCallResult {
  content?: unknown[];
  structuredContent?: unknown;
  isError?: boolean;
}

export interface ShownResource {
  uri: string;
  name?: string;
  mimeType?: string;
}

/** An MCP result for the UI: the server's text, images and resources. */
export interface McpResultView {
  text: string;
  images: Array<{ mimeType: string; dataUrl: string }>;
  resources: ShownResource[];
}

/**
 * Convert a tool result: text → text; images → image parts when the model accepts images (else a note);
 * embedded resources and resource links → text naming their URI; `structuredContent` → JSON text (when
 * the content does not already carry it). Text is capped at 100,000 characters, binary at 10 MiB.
 */
export function convertResult(result: McpCallResult, imageInput: boolean): { tool: ToolResult; view: McpResultView } {
  const texts: string[] = [];
  const images: Array<{ mimeType: string; data: string }> = [];
  const resources: ShownResource[] = [];
  const notes: string[] = [];
  let binaryBytes = 0;
  const takeBinary = (base64: string, what: string): boolean => {
    const bytes = Math.floor((base64.length * 3) / 4);
    if (binaryBytes + bytes > MCP_MAX_BINARY_BYTES) {
      notes.push(`${what} was omitted: the result's binary content is over the 10 MiB limit.`);
      return false;
    }
    binaryBytes += bytes;
    return true;
  };

  for (const item of Array.isArray(result.content) ? result.content : []) {
    const part = (item ?? {}) as Record<string, unknown>;
    switch (part.type) {
      case 'text':
        texts.push(str(part.text));
        break;
      case 'image': {
        const mimeType = str(part.mimeType, 'image/png');
        const data = str(part.data);
        if (!imageInput) notes.push(`An image (${mimeType}) was omitted: the configured model does not accept images.`);
        else if (takeBinary(data, `An image (${mimeType})`)) images.push({ mimeType, data });
        break;
      }
      case 'audio':
        notes.push(`An audio clip (${str(part.mimeType, 'audio')}) was omitted: audio is not passed to the model.`);
        break;
      case 'resource': {
        const resource = (part.resource ?? {}) as Record<string, unknown>;
        const uri = str(resource.uri);
        const mimeType = typeof resource.mimeType === 'string' ? resource.mimeType : undefined;
        resources.push({ uri, ...(mimeType ? { mimeType } : {}) });
        if (typeof resource.text === 'string') texts.push(`Resource ${uri}${mimeType ? ` (${mimeType})` : ''}:\n${resource.text}`);
        else if (typeof resource.blob === 'string') {
          const size = Math.floor((resource.blob.length * 3) / 4);
          texts.push(`Resource ${uri}${mimeType ? ` (${mimeType})` : ''}: binary, ${size.toLocaleString('en-US')} bytes (not shown).`);
        } else texts.push(`Resource ${uri}`);
        break;
      }
      case 'resource_link': {
        const uri = str(part.uri);
        const name = typeof part.name === 'string' ? part.name : undefined;
        const mimeType = typeof part.mimeType === 'string' ? part.mimeType : undefined;
        resources.push({ uri, ...(name ? { name } : {}), ...(mimeType ? { mimeType } : {}) });
        const description = typeof part.description === 'string' ? ` — ${part.description}` : '';
        texts.push(`Resource link: ${uri}${name ? ` (${name})` : ''}${description}`);
        break;
      }
      default:
        texts.push(`[unsupported content type ${JSON.stringify(part.type)}]`);
    }
  }
  if (result.structuredContent !== undefined && result.structuredContent !== null) {
    const json = JSON.stringify(result.structuredContent, null, 2);
    if (!texts.some((t) => t.trim() === json.trim() || safeEquals(t, result.structuredContent))) texts.push(json);
  }

  const joined = texts.join('\n');
  const truncated = joined.length > MCP_MAX_CHARS;
  const text = truncated
    ? `${headOf(joined, MCP_MAX_CHARS)}${TRUNCATION_MARKER}\nThe server returned ${joined.length.toLocaleString('en-US')} characters; only the first ${MCP_MAX_CHARS.toLocaleString('en-US')} are shown. Ask the tool for less (a narrower query, a page) if you need the rest.`
    : joined;
  const withNotes = [text, ...notes].filter((t) => t !== '').join('\n');
  const output: string | ContentPart[] = images.length
    ? [
        { type: 'text', text: withNotes || 'The tool returned images.' },
        ...images.map((i): ContentPart => ({ type: 'image', mimeType: i.mimeType, data: i.data })),
      ]
    : withNotes;
  const view: McpResultView = {
    text: withNotes,
    images: images.map((i) => ({ mimeType: i.mimeType, dataUrl: `data:${i.mimeType};base64,${i.data}` })),
    resources,
  };
  return { tool: { output, ...(result.isError ? { isError: true } : {}), truncated: true }, view };
}

function safeEquals(text: string, value: unknown): boolean {
  try {
    return JSON.stringify(JSON.parse(text)) === JSON.stringify(value);
  } catch {
    return false;
  }
}

function str(value: unknown, fallback = ''): string {
  return typeof value === 'string' ? value : fallback;
}
