import { useEffect, useState } from 'react';
import type { Attachment } from '#protocol';
import { Icon } from '../../components/Icon';
import { attachmentPreview } from '../../actions/attachments';
import { hasFiles, imageFiles } from './attachments';

function usePreview(path: string): string | null {
  const [url, setUrl] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    void attachmentPreview(path).then((u) => live && setUrl(u));
    return () => {
      live = false;
    };
  }, [path]);
  return url;
}

/** A thumbnail of an attached image; with `onRemove`, a button takes it off the next prompt. */
export function AttachmentThumb({ attachment, onRemove }: { attachment: Attachment; onRemove?: () => void }) {
  const url = usePreview(attachment.path);
  return (
    <figure className="attachment-thumb" title={attachment.name}>
      {url ? <img src={url} alt={attachment.name} /> : <Icon name="image" size={22} className="attachment-placeholder" />}
      <figcaption>{attachment.name}</figcaption>
      {onRemove ? (
        <button type="button" className="attachment-remove" aria-label={`Remove ${attachment.name}`} onClick={onRemove}>
          <Icon name="x" size={12} />
        </button>
      ) : null}
    </figure>
  );
}

export function AttachmentStrip({
  attachments,
  onRemove,
  label,
}: {
  attachments: readonly Attachment[];
  onRemove?: (attachment: Attachment) => void;
  label: string;
}) {
  if (!attachments.length) return null;
  return (
    <ul className="attachment-strip" aria-label={label}>
      {attachments.map((a) => (
        <li key={a.path}>
          <AttachmentThumb attachment={a} {...(onRemove ? { onRemove: () => onRemove(a) } : {})} />
        </li>
      ))}
    </ul>
  );
}

/** Files dragged anywhere over the window: `dragging` while they hover, `onFiles` with the images dropped. */
export function useWindowDrop(onFiles: (files: File[]) => void): boolean {
  const [dragging, setDragging] = useState(false);
  useEffect(() => {
    let depth = 0;
    const enter = (e: DragEvent) => {
      if (!hasFiles(e.dataTransfer)) return;
      e.preventDefault();
      depth++;
      setDragging(true);
    };
    const over = (e: DragEvent) => {
      if (!hasFiles(e.dataTransfer)) return;
      e.preventDefault();
      if (e.dataTransfer) e.dataTransfer.dropEffect = 'copy';
    };
    const leave = () => {
      depth = Math.max(0, depth - 1);
      if (!depth) setDragging(false);
    };
    const drop = (e: DragEvent) => {
      if (!hasFiles(e.dataTransfer)) return;
      e.preventDefault();
      depth = 0;
      setDragging(false);
      onFiles([...(e.dataTransfer?.files ?? [])]);
    };
    window.addEventListener('dragenter', enter);
    window.addEventListener('dragover', over);
    window.addEventListener('dragleave', leave);
    window.addEventListener('drop', drop);
    return () => {
      window.removeEventListener('dragenter', enter);
      window.removeEventListener('dragover', over);
      window.removeEventListener('dragleave', leave);
      window.removeEventListener('drop', drop);
    };
  }, [onFiles]);
  return dragging;
}

export function DropOverlay() {
  return (
    <div className="drop-overlay" role="status">
      <Icon name="image" size={28} />
      <span>Drop images or files to add them to your message</span>
    </div>
  );
}

export { imageFiles };
