import { randomBytes } from 'node:crypto';
import { mkdir, readFile, realpath, stat, writeFile } from 'node:fs/promises';
import { extname, isAbsolute, join, resolve } from 'node:path';
import { loadSharp } from './sharp';
import type { Attachment } from '#protocol';
import { MAX_ATTACHMENT_BYTES } from '#protocol/helpers/limits';
import { CommandError } from '#contract/errors';
import { isWithin } from '#infra/policies/path-guard';
import { isSensitivePath } from '#infra/policies/sensitive';
import { attachmentsDir } from '#infra/sessions/attachments-dir';
import { IMAGE_MIME, MODEL_IMAGE_FORMATS, SNIFF_BYTES, sniff } from './file-type';
import { imageLimits, notModelImageMessage, previewDataUrl } from './images';
import { formatBytes } from '#protocol/helpers/units';

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const EXTENSION: Record<string, string> = { png: '.png', jpeg: '.jpg', gif: '.gif', webp: '.webp' };

function safeName(name: string, fallback = 'image'): string {
  const base = name.split(/[\\/]/).pop() ?? fallback;
  const cleaned = base
    .replace(/[^\w.-]+/g, '_')
    .replace(/^\.+/, '')
    .slice(0, 80);
  return cleaned || fallback;
}

/**
 * Save a file a user dropped, pasted or attached. Images must be in a format the model can be shown and
 * must decode — the same rules ReadMediaFile applies when the model opens them. Any other file is kept
 * as it is, for the model to open with Read (or a command).
 */
export async function saveAttachment(sessionDir: string, name: string, base64: string): Promise<Attachment> {
  if (base64.length % 4 !== 0 || !BASE64.test(base64)) throw new CommandError('invalid_request', 'The attachment data is not valid base64.');
  const bytes = Buffer.from(base64, 'base64');
  if (bytes.length === 0) throw new CommandError('invalid_request', `${name} is empty.`);
  if (bytes.length > MAX_ATTACHMENT_BYTES) {
    throw new CommandError('invalid_request', `${name} is ${formatBytes(bytes.length)}; files up to ${formatBytes(MAX_ATTACHMENT_BYTES)} can be attached.`);
  }
  if (isSensitivePath(name))
    throw new CommandError(
      'invalid_request',
      `${name} looks like a secret file (keys, .env files, credentials); Deft does not hand secrets to the model. Paste only the values it needs.`,
    );
  const kind = sniff(bytes.subarray(0, SNIFF_BYTES), name);
  if (kind.kind !== 'image')
    return { kind: 'file', path: await store(sessionDir, safeName(name, 'file'), bytes), name: safeName(name, 'file'), mimeType: 'application/octet-stream' };
  if (!MODEL_IMAGE_FORMATS.has(kind.format)) throw new CommandError('invalid_request', notModelImageMessage(name, kind));
  try {
    const meta = await (await loadSharp())(bytes, { limitInputPixels: imageLimits().maxPixels }).metadata();
    if (!meta.width || !meta.height) throw new Error('no dimensions');
  } catch (error) {
    throw new CommandError('invalid_request', `${name} could not be decoded as an image (${(error as Error).message}).`);
  }
  let file = safeName(name);
  const wanted = EXTENSION[kind.format]!;
  if (extname(file).toLowerCase() !== wanted && !(kind.format === 'jpeg' && extname(file).toLowerCase() === '.jpeg')) file += wanted;
  return { kind: 'image', path: await store(sessionDir, file, bytes), name: safeName(name), mimeType: IMAGE_MIME[kind.format] };
}

/** Write the bytes under the attachments folder with a random prefix, never over an existing file. */
async function store(sessionDir: string, file: string, bytes: Buffer): Promise<string> {
  const dir = attachmentsDir(sessionDir);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, `${randomBytes(4).toString('hex')}-${file}`);
  await writeFile(path, bytes, { mode: 0o600, flag: 'wx' });
  return path;
}

/** A thumbnail of a saved attachment; refuses any path outside the session's attachments folder. */
export async function attachmentPreview(sessionDir: string, path: string): Promise<{ dataUrl: string; width: number; height: number }> {
  const outside = new CommandError('invalid_request', 'Only images attached to this session can be previewed.');
  // Refused before touching the disk, so a page cannot probe which paths exist elsewhere.
  const dir = attachmentsDir(sessionDir);
  if (!isAbsolute(path) || !isWithin(resolve(path), dir) || resolve(path) === dir) throw outside;
  const root = await realpath(dir).catch(() => {
    throw outside;
  });
  const real = await realpath(path).catch(() => {
    throw new CommandError('not_found', 'That attachment no longer exists.');
  });
  if (!isWithin(real, root) || real === root) throw outside;
  const stats = await stat(real);
  if (!stats.isFile() || stats.size > MAX_ATTACHMENT_BYTES) throw new CommandError('invalid_request', 'That attachment cannot be previewed.');
  try {
    return await previewDataUrl(await readFile(real), 320);
  } catch (error) {
    throw new CommandError('invalid_request', `The attachment could not be previewed (${(error as Error).message}).`);
  }
}
