import { viewFile } from '../../actions/files';

/** A file path that opens the file, read-only, in the viewer pane. */
export function FilePath({ path, label, className }: { path: string; label?: string; className?: string }) {
  const file = path.endsWith('/') ? null : path;
  if (!file) return <span className={className}>{label ?? path}</span>;
  return (
    <button
      type="button"
      className={`file-link${className ? ` ${className}` : ''}`}
      title={`Open ${path} (read-only)`}
      onClick={(e) => {
        e.stopPropagation();
        void viewFile(file);
      }}
    >
      {label ?? path}
    </button>
  );
}
