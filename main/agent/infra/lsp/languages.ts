import { basename, extname } from 'node:path';

/** LSP language ids by file extension (lower case, with the dot). */
const BY_EXTENSION: Readonly<Record<string, string>> = {
  '.ts': 'typescript',
  '.mts': 'typescript',
  '.cts': 'typescript',
  '.tsx': 'typescriptreact',
  '.js': 'javascript',
  '.mjs': 'javascript',
  '.cjs': 'javascript',
  '.jsx': 'javascriptreact',
  '.py': 'python',
  '.pyi': 'python',
  '.go': 'go',
  '.rs': 'rust',
  '.c': 'c',
  '.h': 'c',
  '.cc': 'cpp',
  '.cpp': 'cpp',
  '.cxx': 'cpp',
  '.hh': 'cpp',
  '.hpp': 'cpp',
  '.hxx': 'cpp',
};

/** The language id of a file (by its extension), or null when no server of ours knows it. */
export function languageOf(path: string): string | null {
  const ext = extname(basename(path)).toLowerCase();
  return BY_EXTENSION[ext] ?? null;
}

/** The language a user names in settings: an id ("typescript") or a family ("javascript" covers the React variant). */
export function languageFamily(id: string): string {
  if (id === 'typescriptreact') return 'typescript';
  if (id === 'javascriptreact') return 'javascript';
  if (id === 'cpp') return 'c';
  return id;
}
