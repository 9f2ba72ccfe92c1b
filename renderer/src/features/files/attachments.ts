import { DeftError } from '../../../../protocol/bridge';
import type { Attachment } from '../../../../protocol';
import { MAX_ATTACHMENT_BYTES } from '../../../../protocol/limits';
import { deft } from '../../bridge';
import { ensureSession } from '../../stores/actions';
import { useSessions } from '../../stores/sessions';

/** Image types the model can be shown (the core checks the bytes again). */
export const ATTACHABLE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];

function base64Of(file: Blob): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => {
      const url = typeof reader.result === 'string' ? reader.result : '';
      resolve(url.slice(url.indexOf(',') + 1));
    };
    reader.onerror = () => reject(reader.error ?? new Error('The file could not be read.'));
    reader.readAsDataURL(file);
  });
}

/** Save a dropped or pasted image with the current session (starting one if needed). */
export async function attachImage(file: File): Promise<Attachment> {
  if (!ATTACHABLE_TYPES.includes(file.type)) {
    throw new Error(`${file.name || 'That file'} is not a PNG, JPEG, GIF or WebP image, so it cannot be attached.`);
  }
  if (file.size > MAX_ATTACHMENT_BYTES) {
    throw new Error(`${file.name || 'The image'} is ${(file.size / 1024 / 1024).toFixed(1)} MiB; images up to ${MAX_ATTACHMENT_BYTES / 1024 / 1024} MiB can be attached.`);
  }
  const sessionId = await ensureSession();
  if (!sessionId) throw new Error('No session to attach the image to.');
  const name = file.name && file.name !== 'image.png' ? file.name : `pasted-${new Date().toISOString().replace(/[:.]/g, '-')}.${file.type.split('/')[1]}`;
  try {
    const { attachment } = await deft.saveAttachment({ sessionId, name, data: await base64Of(file) });
    return attachment;
  } catch (error) {
    throw new Error(DeftError.from(error).detail, { cause: error });
  }
}

const previews = new Map<string, Promise<string | null>>();

/** A thumbnail (data URL) of an attachment of the current session, fetched once. */
export function attachmentPreview(path: string): Promise<string | null> {
  let preview = previews.get(path);
  if (!preview) {
    const sessionId = useSessions.getState().currentId;
    preview = sessionId
      ? deft.attachmentPreview({ sessionId, path }).then(
          (p) => p.dataUrl,
          () => null,
        )
      : Promise.resolve(null);
    previews.set(path, preview);
  }
  return preview;
}

/** Remember a preview made locally (the image the user just dropped), so it is not fetched again. */
export function rememberPreview(path: string, dataUrl: string): void {
  previews.set(path, Promise.resolve(dataUrl));
}

/** Image files in a drop or paste. */
export function imageFiles(data: DataTransfer | null): File[] {
  if (!data) return [];
  return [...data.files].filter((f) => f.type.startsWith('image/'));
}

export function hasFiles(data: DataTransfer | null): boolean {
  return !!data && [...data.types].includes('Files');
}
