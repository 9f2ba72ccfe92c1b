import { describe, expect, it } from 'vitest';
import { htmlToMarkdown } from './html-to-markdown';

describe('htmlToMarkdown', () => {
  it('cuts script, style, SVG and comment bodies the way a parser would, keeping the text around them', () => {
    const html = `<html><head><title>T</title></head><body><p>before</p><script>var s = "</p><p>not text";</script  ><!-- <p>commented</p> --><svg><text>drawn</text></svg><p>after</p><style>p{}</style><p>end</p><script>never closed <p>swallowed</p></body></html>`;
    const { markdown, source } = htmlToMarkdown(html, 'https://example.com/');
    expect(source).toBe('body');
    expect(markdown).toBe('# T\n\nbefore\n\nafter\n\nend\n');
  });

  it('falls back to <main> when there is no article, dropping navigation', () => {
    const html = '<html><head><title>Short</title></head><body><nav>Menu</nav><main><h2>Usage</h2><p>Run it.</p></main><footer>Foot</footer></body></html>';
    expect(htmlToMarkdown(html, 'https://example.com/')).toEqual({ title: 'Short', markdown: '# Short\n\n## Usage\n\nRun it.\n', source: 'main' });
  });

  it('numbers ordered lists from their start and keeps code fences longer than the backticks inside', () => {
    const html =
      '<html><head><title>L</title></head><body><main><ol start="3"><li>three</li><li>four</li></ol><pre><code>a ``` b</code></pre></main></body></html>';
    const { markdown } = htmlToMarkdown(html, 'https://example.com/');
    expect(markdown).toContain('3. three\n4. four');
    expect(markdown).toContain('````\na ``` b\n````');
  });
});
