import { extname } from 'node:path';
import type { Environment } from '#contract/environment';
import type { WorkspaceFileView } from '#protocol';
import { CommandError } from '#contract/errors';
import { type GuardedPath, guardPath } from '#infra/policies/path-guard';
import { SNIFF_BYTES, sniff } from './file-type';
import { formatBytes } from '#protocol/helpers/units';

/** The most the viewer shows of one file. */
export const VIEWER_MAX_BYTES = 1024 * 1024;

/** Extensions a desktop opens by running them, or that point elsewhere: never handed to the system's "open". */
const RUNNABLE = new Set([
  '.app',
  '.command',
  '.tool',
  '.terminal',
  '.scpt',
  '.applescript',
  '.workflow',
  '.action',
  '.pkg',
  '.mpkg',
  '.dmg',
  '.webloc',
  '.inetloc',
  '.fileloc',
  '.desktop',
  '.sh',
  '.bash',
  '.zsh',
  '.fish',
  '.csh',
  '.ksh',
  '.run',
  '.appimage',
  '.deb',
  '.rpm',
  '.exe',
  '.com',
  '.bat',
  '.cmd',
  '.msi',
  '.msc',
  '.ps1',
  '.psm1',
  '.vbs',
  '.vbe',
  '.js',
  '.jse',
  '.wsf',
  '.wsh',
  '.hta',
  '.lnk',
  '.url',
  '.scr',
  '.pif',
  '.cpl',
  '.reg',
  '.jar',
  '.jnlp',
]);

async function guarded(environment: Environment, path: string, workspace: string): Promise<GuardedPath> {
  try {
    return await guardPath(path, 'read', { environment, workspace });
  } catch (error) {
    throw new CommandError('invalid_request', (error as Error).message);
  }
}

async function headerOf(environment: Environment, real: string, bytes: number): Promise<Buffer> {
  const reader = await environment.openRead(real);
  try {
    const buffer = Buffer.alloc(bytes);
    const read = await reader.read(buffer, 0, bytes);
    return buffer.subarray(0, read);
  } finally {
    await reader.close();
  }
}

async function regularFile(environment: Environment, path: GuardedPath) {
  const info = await environment.stat(path.real).catch(() => null);
  if (!info) throw new CommandError('not_found', `${path.display} does not exist.`);
  // A FIFO or device would block the read (or never end); a folder has no text.
  if (!info.isFile()) throw new CommandError('invalid_request', `${path.display} is not a regular file.`);
  return info;
}

/**
 * A file's text for the read-only viewer, through the same path policy as the file tools (secret
 * files refused, symlinks resolved). Binary files are refused; text beyond 1 MiB is cut.
 */
export async function readForViewer(environment: Environment, path: string, workspace: string, canOpenExternally: boolean): Promise<WorkspaceFileView> {
  const file = await guarded(environment, path, workspace);
  const info = await regularFile(environment, file);
  const bytes = await headerOf(environment, file.real, Math.min(info.size, VIEWER_MAX_BYTES));
  const kind = sniff(bytes.subarray(0, SNIFF_BYTES), file.real);
  if (kind.kind !== 'text')
    throw new CommandError(
      'invalid_request',
      `${file.display} is not a text file (${kind.kind === 'image' ? `a ${kind.format.toUpperCase()} image` : kind.format}); the viewer shows text only.`,
    );
  let content = bytes.toString('utf8');
  const truncated = info.size > bytes.length;
  // A cut in the middle of a multi-byte character leaves a replacement character at the end: drop it.
  if (truncated) content = content.replace(/\uFFFD+$/, '');
  const lines = content.split('\n').length - (content.endsWith('\n') ? 1 : 0);
  return {
    path: file.display,
    content,
    totalLines: truncated ? Math.max(lines, Math.round((info.size / Math.max(1, bytes.length)) * lines)) : lines,
    size: info.size,
    truncated,
    canOpenExternally: canOpenExternally && file.inside && environment.kind === 'local',
  };
}

/**
 * Check that a file may be handed to the system's "open with the default app": inside the workspace, a
 * regular text file, not executable, and not of a kind a desktop runs when opened (a `.command` or
 * `.desktop` file shipped by a cloned repository must not run because its path was clicked).
 */
export async function openableInEditor(environment: Environment, path: string, workspace: string): Promise<string> {
  if (environment.kind !== 'local')
    throw new CommandError('unsupported', `The workspace is on ${environment.label}; its files open in the viewer, not in an editor on this machine.`);
  const file = await guarded(environment, path, workspace);
  if (!file.inside) throw new CommandError('invalid_request', `${file.display} is outside the workspace; only workspace files open in the editor.`);
  const info = await regularFile(environment, file);
  if (info.mode & 0o111)
    throw new CommandError('invalid_request', `${file.display} is executable, so it is shown in the viewer rather than handed to the system.`);
  if (RUNNABLE.has(extname(file.real).toLowerCase()))
    throw new CommandError('invalid_request', `${file.display} is a kind of file the system may run when opened; it is shown in the viewer instead.`);
  const kind = sniff((await headerOf(environment, file.real, SNIFF_BYTES)).subarray(0, SNIFF_BYTES), file.real);
  if (kind.kind !== 'text') throw new CommandError('invalid_request', `${file.display} is not a text file (${formatBytes(info.size)}).`);
  return file.real;
}
