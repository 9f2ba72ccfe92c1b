import { localEnvironment } from '../main/agent/infra/environment/local/local-environment';
import { performance } from 'node:perf_hooks';
import { fetch } from 'undici';
import { fetchUrlTool } from '../main/agent/capabilities/web/tools/fetch-url/fetch-url';
import { isExecution } from '../main/agent/contract/tool';
import { send, startServer } from '../test-support/web-servers';
import { type BenchResult, median } from './types';

/** A documentation-like page: navigation, headings, paragraphs with links, code blocks and tables. */
function page(sections: number): string {
  // Like real pages, a good part of the bytes is script and inline SVG.
  const script = `<script>${'window.analytics = window.analytics || []; '.repeat(2_000)}</script>`;
  const svg = `<svg viewBox="0 0 10 10">${'<path d="M0 0L10 10"/>'.repeat(500)}</svg>`;
  const parts = [
    `<!doctype html><html><head><title>Big Guide</title>${script}</head><body>${svg}<nav>`,
    ...Array.from({ length: 50 }, (_, i) => `<a href="/n${i}">Nav ${i}</a>`),
    '</nav><main><article><h1>Big Guide</h1>',
  ];
  for (let i = 0; i < sections; i++) {
    parts.push(
      `<h2>Section ${i}</h2><p>Paragraph ${i} explains <a href="/s/${i}">option ${i}</a> with enough words to read like documentation, and <code>inline code</code> as well.</p>`,
      `<pre><code class="language-ts">export const value${i} = ${i};\nconsole.log(value${i});</code></pre>`,
      `<table><thead><tr><th>Key</th><th>Value</th></tr></thead><tbody><tr><td>k${i}</td><td>${i}</td></tr></tbody></table>`,
    );
  }
  parts.push('</article></main><footer>footer</footer></body></html>');
  return parts.join('\n');
}

/** FetchURL on a large HTML page (checks, fetch, Readability, Markdown) versus a plain fetch of the same bytes. */
export default async function web(): Promise<BenchResult[]> {
  const html = page(800);
  const server = await startServer(send(200, 'text/html; charset=utf-8', html));
  try {
    const tool = fetchUrlTool({ resolver: async () => [], allowedPrivateHosts: async () => [server.authority] });
    const env = {
      environment: localEnvironment(),
      workspace: '/',
      home: '/',
      sessionId: 's',
      sessionDir: '/tmp',
      capabilities: { imageInput: false },
      extraRoots: () => [],
    };
    let chars = 0;
    const fetchUrl = await median(5, async () => {
      const t0 = performance.now();
      const execution = await tool.resolveExecution({ url: `${server.url}/guide` }, env);
      if (!isExecution(execution)) throw new Error('not an execution');
      const result = await execution.execute({ signal: new AbortController().signal, onUpdate: () => {}, callId: 'c', turnId: 't', step: 1 });
      const output = typeof result.output === 'string' ? result.output : '';
      if (result.isError) throw new Error(output);
      chars = output.length;
      return performance.now() - t0;
    });
    const plain = await median(5, async () => {
      const t0 = performance.now();
      await (await fetch(`${server.url}/guide`)).text();
      return performance.now() - t0;
    });
    return [
      {
        name: `FetchURL, ${(html.length / 1024 / 1024).toFixed(1)} MB HTML page → Markdown`,
        value: fetchUrl,
        unit: 'ms',
        baseline: { name: 'plain undici fetch of the same page', value: plain },
        note: `${chars.toLocaleString('en-US')} characters of Markdown`,
      },
    ];
  } finally {
    await server.close();
  }
}
