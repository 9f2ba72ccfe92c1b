import type { Diagnostic } from 'vscode-languageserver-protocol/node';
import type { CodeDiagnostics, CodeProblem } from '#protocol';

/** Problems listed per file in a tool result; the rest are counted. */
export const PROBLEMS_PER_FILE = 5;
const MESSAGE_CHARS = 400;

/** A server's diagnostic as Deft shows it (1-based), or null for hints and information. */
export function toProblem(diagnostic: Diagnostic, warnings: boolean): CodeProblem | null {
  const severity = diagnostic.severity ?? 1;
  if (severity !== 1 && !(warnings && severity === 2)) return null;
  const message = (typeof diagnostic.message === 'string' ? diagnostic.message : diagnostic.message.value).replace(/\s+/g, ' ').trim();
  const code =
    diagnostic.code === undefined || diagnostic.code === null ? undefined : `${diagnostic.source === 'typescript' ? 'TS' : ''}${String(diagnostic.code)}`;
  return {
    line: diagnostic.range.start.line + 1,
    column: diagnostic.range.start.character + 1,
    severity: severity === 1 ? 'error' : 'warning',
    message: message.length > MESSAGE_CHARS ? `${message.slice(0, MESSAGE_CHARS)}…` : message,
    ...(code ? { code } : {}),
  };
}

const identity = (p: CodeProblem) => `${p.severity}\u0000${p.code ?? ''}\u0000${p.message}`;

/**
 * The problems in `after` that were not there before: matched by severity, code and message, not by line (an edit
 * moves the lines below it), each earlier problem cancelling one later one.
 */
export function introducedProblems(before: readonly Diagnostic[], after: readonly Diagnostic[], warnings: boolean): CodeProblem[] {
  const earlier = new Map<string, number>();
  for (const d of before) {
    const p = toProblem(d, warnings);
    if (p) earlier.set(identity(p), (earlier.get(identity(p)) ?? 0) + 1);
  }
  const found: CodeProblem[] = [];
  for (const d of after) {
    const p = toProblem(d, warnings);
    if (!p) continue;
    const left = earlier.get(identity(p)) ?? 0;
    if (left > 0) earlier.set(identity(p), left - 1);
    else found.push(p);
  }
  return found.sort((a, b) => a.line - b.line || a.column - b.column);
}

/** Every error (and warning, when asked) of a file, in line order. */
export function problemsOf(diagnostics: readonly Diagnostic[], warnings: boolean): CodeProblem[] {
  return diagnostics.flatMap((d) => toProblem(d, warnings) ?? []).sort((a, b) => a.line - b.line || a.column - b.column);
}

/** One problem as the model reads it: `path:line:col error CODE: message`. */
export function problemLine(path: string, p: CodeProblem): string {
  return `${path}:${p.line}:${p.column} ${p.severity}${p.code ? ` ${p.code}` : ''}: ${p.message}`;
}

/** The card's part and the model's lines for the problems a write introduced. */
export function describeIntroduced(
  path: string,
  server: string,
  problems: readonly CodeProblem[],
  checkedBefore = true,
): { diagnostics: CodeDiagnostics; text: string } {
  const shown = problems.slice(0, PROBLEMS_PER_FILE);
  const more = problems.length - shown.length;
  const diagnostics = { server, problems: shown, more };
  if (!problems.length) return { diagnostics, text: '' };
  const errors = problems.filter((p) => p.severity === 'error').length;
  const warnings = problems.length - errors;
  const counted = [errors ? `${errors} new error${errors === 1 ? '' : 's'}` : '', warnings ? `${warnings} new warning${warnings === 1 ? '' : 's'}` : '']
    .filter(Boolean)
    .join(' and ');
  const head = checkedBefore
    ? `The ${server} language server reports ${counted} in ${path} after this change:`
    : `The ${server} language server reports ${counted.replace(/new /g, '')} in ${path} (it had not checked the file before this change, so some may be older):`;
  const lines = [head, ...shown.map((p) => `  ${problemLine(path, p)}`)];
  if (more) lines.push(`  … and ${more} more (LSP diagnostics lists them all).`);
  return { diagnostics, text: lines.join('\n') };
}
