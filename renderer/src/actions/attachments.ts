import { DeftError } from '#protocol/helpers/bridge';
import type { Attachment } from '#protocol';
import { deft } from '../bridge';
import { useSessions } from '../stores/sessions';
import { ensureSession } from './sessions';

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

/** Save an image with the current session (starting one if needed). Throws an error written for the user. */
export async function saveAttachment(file: File, name: string): Promise<Attachment> {
  const sessionId = await ensureSession();
  if (!sessionId) throw new Error('No session to attach the image to.');
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
