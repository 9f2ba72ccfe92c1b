/** How a text's lines end: pure LF, pure CRLF, a mix (or lone CRs), or no line breaks at all. */
export type LineEndingStyle = 'lf' | 'crlf' | 'mixed' | 'none';

export function lineEndingStyle(stats: { crlf: number; lf: number; cr: number }): LineEndingStyle {
  if (stats.cr > 0 || (stats.crlf > 0 && stats.lf > 0)) return 'mixed';
  if (stats.crlf > 0) return 'crlf';
  if (stats.lf > 0) return 'lf';
  return 'none';
}

export function countLineEndings(text: string): { crlf: number; lf: number; cr: number } {
  let crlf = 0;
  let lf = 0;
  let cr = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) {
    if (i > 0 && text.charCodeAt(i - 1) === 13) crlf++;
    else lf++;
  }
  for (let i = text.indexOf('\r'); i !== -1; i = text.indexOf('\r', i + 1)) if (text.charCodeAt(i + 1) !== 10) cr++;
  return { crlf, lf, cr };
}

/**
 * The text as the model works on it: a pure-CRLF file is seen (and edited) with LF line breaks and
 * written back with CRLF; anything else is taken literally. A UTF-8 byte-order mark is set aside.
 */
export interface ModelView {
  text: string;
  style: LineEndingStyle;
  bom: boolean;
}

export function toModelView(raw: string): ModelView {
  const bom = raw.charCodeAt(0) === 0xfeff;
  const body = bom ? raw.slice(1) : raw;
  const style = lineEndingStyle(countLineEndings(body));
  return { text: style === 'crlf' ? body.replace(/\r\n/g, '\n') : body, style, bom };
}

export function fromModelView(text: string, view: Pick<ModelView, 'style' | 'bom'>): string {
  const body = view.style === 'crlf' ? text.replace(/\r?\n/g, '\r\n') : text;
  return view.bom ? `\ufeff${body}` : body;
}
