import { UnreadableContent } from './unreadable';
/** What the model reads of a fetched body, and how it was made. */
export interface PageContent {
  text: string;
  /** The first line of the result: full body, main text extracted, … */
  kind: string;
  title?: string;
  /** Main text was extracted (not the whole body). */
  extracted: boolean;
}

export { UnreadableContent };

const MAX_PDF_PAGES = 200;

function mediaType(contentType: string): string {
  return contentType.split(';')[0]!.trim().toLowerCase();
}

function charsetOf(contentType: string, head: Buffer, html: boolean): string {
  const declared = /charset\s*=\s*"?([\w.:-]+)/i.exec(contentType)?.[1];
  if (declared) return declared;
  if (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) return 'utf-8';
  if (head[0] === 0xff && head[1] === 0xfe) return 'utf-16le';
  if (head[0] === 0xfe && head[1] === 0xff) return 'utf-16be';
  if (html) {
    const meta = /<meta[^>]+charset\s*=\s*["']?([\w.:-]+)/i.exec(head.subarray(0, 4096).toString('latin1'))?.[1];
    if (meta) return meta;
  }
  return 'utf-8';
}

function decode(body: Buffer, contentType: string, html = false): string {
  const charset = charsetOf(contentType, body, html);
  try {
    return new TextDecoder(charset).decode(body);
  } catch {
    return new TextDecoder('utf-8').decode(body);
  }
}

const TEXT_TYPES =
  /^(text\/|application\/(xml|javascript|ecmascript|x-sh|x-shellscript|x-yaml|yaml|toml|x-toml|sql|graphql|x-httpd-php|x-python|x-ruby|x-perl|csv|rtf|x-tex|x-latex)$)|\+xml$/;
const MARKDOWN_TYPES = new Set(['text/markdown', 'text/x-markdown']);

/** A body without a usable type is text when it decodes as UTF-8 without NULs. */
function looksLikeText(body: Buffer): boolean {
  const head = body.subarray(0, 64 * 1024);
  if (head.includes(0)) return false;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(head.length < body.length ? head.subarray(0, lastCompleteUtf8(head)) : head);
    return true;
  } catch {
    return false;
  }
}

/** Length of `buf` without a UTF-8 sequence cut at its end. */
function lastCompleteUtf8(buf: Buffer): number {
  let i = buf.length - 1;
  let back = 0;
  while (i >= 0 && back < 4 && (buf[i]! & 0xc0) === 0x80) {
    i--;
    back++;
  }
  return i >= 0 && buf[i]! >= 0xc0 ? i : buf.length;
}

/**
 * Turn a fetched body into text for the model: HTML reduced to its main content as Markdown, Markdown
 * and plain text passed through, JSON pretty-printed, PDF text extracted; other binary types refused.
 */
export async function convertBody(body: Buffer, contentType: string, url: string): Promise<PageContent> {
  let type = mediaType(contentType);
  if (!type || type === 'application/octet-stream') {
    if (body.subarray(0, 5).toString('latin1') === '%PDF-') type = 'application/pdf';
    else if (looksLikeText(body))
      type =
        /^\s*</.test(body.subarray(0, 1024).toString('utf8')) && /<html|<!doctype html/i.test(body.subarray(0, 4096).toString('utf8'))
          ? 'text/html'
          : 'text/plain';
  }
  if (type === 'text/html' || type === 'application/xhtml+xml') {
    // Loaded on the first HTML page, not at start: its DOM and converters are heavy modules.
    const { htmlToMarkdown } = await import('./html-to-markdown');
    const page = htmlToMarkdown(decode(body, contentType, true), url);
    const kind =
      page.source === 'readability'
        ? 'main text extracted from the HTML (navigation, scripts and styles dropped)'
        : page.source === 'body'
          ? 'whole page converted from HTML (no main content found; scripts and styles dropped)'
          : `main text taken from the page's <${page.source}> element`;
    return { text: page.markdown, kind, title: page.title, extracted: page.source !== 'body' };
  }
  if (type === 'application/json' || type.endsWith('+json')) {
    const text = decode(body, contentType);
    try {
      return { text: JSON.stringify(JSON.parse(text), null, 2), kind: 'JSON, pretty-printed', extracted: false };
    } catch {
      return { text, kind: 'full body verbatim (declared JSON, but it does not parse)', extracted: false };
    }
  }
  if (type === 'application/pdf') return pdfText(body);
  if (MARKDOWN_TYPES.has(type)) {
    const text = decode(body, contentType);
    const heading = /^#\s+(.+?)\s*#*\s*$/m.exec(text.slice(0, 4096))?.[1];
    return { text, kind: 'full body verbatim (Markdown)', extracted: false, ...(heading ? { title: heading } : {}) };
  }
  if (TEXT_TYPES.test(type)) return { text: decode(body, contentType), kind: `full body verbatim (${type})`, extracted: false };
  throw new UnreadableContent(
    `${url} is ${type || 'binary data of unknown type'} (${body.length.toLocaleString('en-US')} bytes), which FetchURL cannot turn into text. It reads HTML, Markdown, plain text, JSON and PDF.`,
  );
}

async function pdfText(body: Buffer): Promise<PageContent> {
  let pages: string[];
  let total: number;
  try {
    // Loaded with the first PDF: a turn that fetches none never parses it.
    const { extractText, getDocumentProxy } = await import('unpdf');
    // No eval: font programs in a hostile PDF must not become code (CVE-2024-4367).
    const document = await getDocumentProxy(new Uint8Array(body), {
      isEvalSupported: false,
      verbosity: 0,
      disableFontFace: true,
      useSystemFonts: false,
      stopAtErrors: false,
    });
    total = document.numPages;
    if (total > MAX_PDF_PAGES) {
      pages = [];
      for (let n = 1; n <= MAX_PDF_PAGES; n++) {
        const content = await (await document.getPage(n)).getTextContent();
        pages.push(content.items.map((item) => ('str' in item ? item.str + (item.hasEOL ? '\n' : '') : '')).join(''));
      }
    } else {
      pages = (await extractText(document, { mergePages: false })).text;
    }
    await document.destroy();
  } catch (error) {
    const message = (error as Error).message;
    if (/password/i.test(message)) throw new UnreadableContent('This PDF is encrypted with a password, so its text cannot be read.');
    throw new UnreadableContent(`This PDF could not be read (${message}). It may be damaged; look for an HTML version of the document.`);
  }
  const text = pages.map((page, i) => `<!-- page ${i + 1} -->\n${page.trim()}`).join('\n\n');
  if (!pages.some((page) => page.trim())) {
    throw new UnreadableContent(
      `This PDF (${total} page${total === 1 ? '' : 's'}) has no text layer: it is probably scanned images. FetchURL does not run OCR; look for an HTML version.`,
    );
  }
  const cut = total > MAX_PDF_PAGES ? ` — the first ${MAX_PDF_PAGES} of ${total} pages` : '';
  return { text, kind: `text extracted from a PDF (${total} page${total === 1 ? '' : 's'}${cut})`, extracted: true };
}
