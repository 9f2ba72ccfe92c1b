import type { Attachment } from '#protocol';
import { MAX_ATTACHMENT_BYTES } from '#protocol/helpers/limits';
import { saveAttachment } from '../../actions/attachments';

/** Image types the model can be shown (the core checks the bytes again). */
export const ATTACHABLE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];

/** Check a dropped or pasted image and save it with the current session (starting one if needed). */
export async function attachImage(file: File): Promise<Attachment> {
  if (!ATTACHABLE_TYPES.includes(file.type)) {
    throw new Error(`${file.name || 'That file'} is not a PNG, JPEG, GIF or WebP image, so it cannot be attached.`);
  }
  if (file.size > MAX_ATTACHMENT_BYTES) {
    throw new Error(
      `${file.name || 'The image'} is ${(file.size / 1024 / 1024).toFixed(1)} MiB; images up to ${MAX_ATTACHMENT_BYTES / 1024 / 1024} MiB can be attached.`,
    );
  }
  const name = file.name && file.name !== 'image.png' ? file.name : `pasted-${new Date().toISOString().replace(/[:.]/g, '-')}.${file.type.split('/')[1]}`;
  return saveAttachment(file, name);
}

/** Whether a dropped file goes with the prompt as an image (anything else is mentioned as a file). */
export function isImage(file: File): boolean {
  return file.type.startsWith('image/') && file.type !== 'image/svg+xml';
}

/** Save a dropped file that is not an image with the current session, for the model to Read. */
export async function attachFile(file: File): Promise<Attachment> {
  if (file.size > MAX_ATTACHMENT_BYTES) {
    throw new Error(
      `${file.name || 'The file'} is ${(file.size / 1024 / 1024).toFixed(1)} MiB; files up to ${MAX_ATTACHMENT_BYTES / 1024 / 1024} MiB can be dropped in.`,
    );
  }
  if (!file.size) throw new Error(`${file.name || 'The file'} is empty.`);
  return saveAttachment(file, file.name || 'dropped-file');
}

/** Image files in a drop or paste. */
export function imageFiles(data: DataTransfer | null): File[] {
  if (!data) return [];
  return [...data.files].filter((f) => f.type.startsWith('image/'));
}

export function hasFiles(data: DataTransfer | null): boolean {
  return !!data && [...data.types].includes('Files');
}
