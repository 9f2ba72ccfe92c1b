import { type ClipboardEvent, useCallback, useState } from 'react';
import type { Attachment } from '#protocol';
import { rememberPreview } from '../../actions/attachments';
import { attachFile, attachImage, imageFiles, isImage } from './attachments';
import { useWindowDrop } from './AttachmentThumbs';

/**
 * Images waiting to go with the next prompt: added by drop, paste or the attach button. Other dropped
 * files are saved with the session too and handed to `onFile` (the composer mentions them).
 */
export function useComposerAttachments(onFile: (attachment: Attachment) => void) {
  const [attachments, setAttachments] = useState<Attachment[]>([]);
  const [pending, setPending] = useState(0);
  const [error, setError] = useState<string | null>(null);

  const add = useCallback(
    async (files: File[]) => {
      if (!files.length) return;
      setError(null);
      setPending((n) => n + files.length);
      for (const file of files) {
        try {
          if (isImage(file)) {
            const attachment = await attachImage(file);
            rememberPreview(attachment.path, URL.createObjectURL(file));
            setAttachments((list) => [...list, attachment]);
          } else {
            onFile(await attachFile(file));
          }
        } catch (e) {
          setError((e as Error).message);
        } finally {
          setPending((n) => n - 1);
        }
      }
    },
    [onFile],
  );

  const dragging = useWindowDrop(
    useCallback(
      (files: File[]) => {
        void add(files);
      },
      [add],
    ),
  );

  const onPaste = (e: ClipboardEvent) => {
    const files = imageFiles(e.clipboardData);
    if (!files.length) return;
    e.preventDefault();
    void add(files);
  };

  return {
    attachments,
    pending,
    error,
    dragging,
    add,
    onPaste,
    remove: (attachment: Attachment) => setAttachments((list) => list.filter((a) => a.path !== attachment.path)),
    /** Put an attachment back (the prompt could not be sent). */
    restore: (attachment: Attachment) => setAttachments((list) => (list.some((a) => a.path === attachment.path) ? list : [...list, attachment])),
    clear: () => {
      setAttachments([]);
      setError(null);
    },
    dismissError: () => setError(null),
  };
}
