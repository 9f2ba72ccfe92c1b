import { describe, expect, it } from 'vitest';
import { MCP_MAX_CHARS, convertResult } from './output';

describe('convertResult', () => {
  it('turns text, images, resources, links and structured content into what the model reads', () => {
    const { tool, view } = convertResult(
      {
        content: [
          { type: 'text', text: 'hello' },
          { type: 'image', data: 'AAAA', mimeType: 'image/png' },
          { type: 'resource', resource: { uri: 'file:///a.txt', mimeType: 'text/plain', text: 'inside' } },
          { type: 'resource_link', uri: 'https://x/doc', name: 'doc' },
        ],
        structuredContent: { a: 1 },
      },
      true,
    );
    expect(Array.isArray(tool.output)).toBe(true);
    const parts = tool.output as Array<{ type: string; text?: string }>;
    expect(parts[0]!.text).toBe('hello\nResource file:///a.txt (text/plain):\ninside\nResource link: https://x/doc (doc)\n{\n  "a": 1\n}');
    expect(parts[1]).toEqual({ type: 'image', mimeType: 'image/png', data: 'AAAA' });
    expect(view.resources.map((r) => r.uri)).toEqual(['file:///a.txt', 'https://x/doc']);
  });

  it('omits images for a model without image input, saying so', () => {
    const { tool } = convertResult({ content: [{ type: 'image', data: 'AAAA', mimeType: 'image/png' }] }, false);
    expect(tool.output).toBe('An image (image/png) was omitted: the configured model does not accept images.');
  });

  it('caps text at 100,000 characters with the marker, and keeps isError', () => {
    const { tool } = convertResult({ content: [{ type: 'text', text: 'x'.repeat(MCP_MAX_CHARS + 10) }], isError: true }, true);
    expect(tool.isError).toBe(true);
    expect(tool.output as string).toContain('[...truncated]');
    expect((tool.output as string).length).toBeLessThan(MCP_MAX_CHARS + 300);
  });

  it('drops images beyond 10 MiB of binary with a note', () => {
    const big = 'A'.repeat(8 * 1024 * 1024);
    const { tool } = convertResult(
      {
        content: [
          { type: 'image', data: big, mimeType: 'image/png' },
          { type: 'image', data: big, mimeType: 'image/png' },
        ],
      },
      true,
    );
    const parts = tool.output as Array<{ type: string; text?: string }>;
    expect(parts.filter((p) => p.type === 'image')).toHaveLength(1);
    expect(parts[0]!.text).toContain('over the 10 MiB limit');
  });
});
