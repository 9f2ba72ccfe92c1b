import { common, createLowlight } from 'lowlight';
import { type ReactNode, memo } from 'react';

const lowlight = createLowlight(common);

const BY_EXTENSION: Record<string, string> = {
  ts: 'typescript',
  tsx: 'typescript',
  mts: 'typescript',
  cts: 'typescript',
  js: 'javascript',
  jsx: 'javascript',
  mjs: 'javascript',
  cjs: 'javascript',
  py: 'python',
  rb: 'ruby',
  go: 'go',
  rs: 'rust',
  java: 'java',
  kt: 'kotlin',
  kts: 'kotlin',
  swift: 'swift',
  c: 'c',
  h: 'c',
  cc: 'cpp',
  cpp: 'cpp',
  cxx: 'cpp',
  hpp: 'cpp',
  cs: 'csharp',
  php: 'php',
  lua: 'lua',
  pl: 'perl',
  r: 'r',
  json: 'json',
  jsonc: 'json',
  md: 'markdown',
  markdown: 'markdown',
  css: 'css',
  scss: 'scss',
  less: 'less',
  html: 'xml',
  htm: 'xml',
  xml: 'xml',
  svg: 'xml',
  vue: 'xml',
  yml: 'yaml',
  yaml: 'yaml',
  toml: 'ini',
  ini: 'ini',
  sh: 'bash',
  bash: 'bash',
  zsh: 'bash',
  sql: 'sql',
  graphql: 'graphql',
  diff: 'diff',
  patch: 'diff',
  mk: 'makefile',
};
const BY_NAME: Record<string, string> = { makefile: 'makefile', dockerfile: 'bash', '.bashrc': 'bash', '.zshrc': 'bash' };

/** The highlight.js language for a path, or null for plain text. */
export function languageFor(path: string): string | null {
  const name = path.split(/[\\/]/).pop()?.toLowerCase() ?? '';
  const byName = BY_NAME[name];
  if (byName) return byName;
  const ext = name.includes('.') ? name.slice(name.lastIndexOf('.') + 1) : '';
  const language = BY_EXTENSION[ext];
  return language && lowlight.registered(language) ? language : null;
}

/** A run of text with the highlight classes that apply to it. */
export interface Segment {
  text: string;
  className?: string;
}

/** The parts of lowlight's syntax tree that matter here. */
type HighlightNode = { type: string; value?: string; properties?: { className?: unknown }; children?: HighlightNode[] };

function flatten(nodes: readonly HighlightNode[], classes: string[], out: Segment[]): void {
  for (const node of nodes) {
    if (node.type === 'text' && node.value !== undefined) out.push(classes.length ? { text: node.value, className: classes.join(' ') } : { text: node.value });
    else if (node.type === 'element') {
      const own = node.properties?.className;
      const names = Array.isArray(own) ? own.map(String) : [];
      flatten(node.children ?? [], [...classes, ...names], out);
    }
  }
}

/** Highlighted text, split into lines of segments (so each line can be laid out on its own). */
export function highlightLines(text: string, language: string | null): Segment[][] {
  const segments: Segment[] = [];
  if (language && text.length <= 400_000) {
    try {
      flatten(lowlight.highlight(language, text).children, [], segments);
    } catch {
      segments.length = 0;
    }
  }
  if (!segments.length) segments.push({ text });
  const lines: Segment[][] = [[]];
  for (const segment of segments) {
    const parts = segment.text.split('\n');
    parts.forEach((part, i) => {
      if (i > 0) lines.push([]);
      if (part) lines[lines.length - 1]!.push({ ...segment, text: part });
    });
  }
  return lines;
}

export const CodeLine = memo(function CodeLine({ segments }: { segments: Segment[] | undefined }): ReactNode {
  if (!segments?.length) return '\u200b';
  return segments.map((s, i) =>
    s.className ? (
      <span key={i} className={s.className}>
        {s.text}
      </span>
    ) : (
      s.text
    ),
  );
});
