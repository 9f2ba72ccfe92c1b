import { EnvironmentError } from '#contract/environment';

/** SFTP status codes as errno-style codes, so callers tell "missing" from "refused" as they do locally. */
const CODES: Record<number, string> = { 2: 'ENOENT', 3: 'EACCES', 4: 'EIO', 5: 'EINVAL', 6: 'ECONNRESET', 7: 'ECONNRESET', 8: 'ENOTSUP' };

export function sftpError(error: unknown, op: string, path: string): EnvironmentError {
  const raw = error as { code?: unknown; message?: string };
  const code = typeof raw.code === 'number' ? (CODES[raw.code] ?? 'EIO') : typeof raw.code === 'string' ? raw.code : 'EIO';
  return new EnvironmentError(code, `${op} ${path}: ${raw.message ?? String(error)} (${code})`, path);
}

/** A value for the shell on the other machine, single-quoted. */
export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}
