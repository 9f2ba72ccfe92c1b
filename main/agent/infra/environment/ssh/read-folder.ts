import type { SFTPWrapper, Stats } from 'ssh2';
import type { DirEntry } from '#contract/environment';

const EOF = 1;

/** A folder's entries as SFTP pages them, stopping after `max` (`more`: there were others): a huge or endless folder is cut. */
export function readFolderCapped(
  sftp: SFTPWrapper,
  path: string,
  max: number,
  done: (error: unknown, value?: { entries: DirEntry[]; more: boolean }) => void,
): void {
  sftp.opendir(path, (error, handle) => {
    if (error) return done(error);
    const entries: DirEntry[] = [];
    const finish = (failure: unknown, more: boolean) => sftp.close(handle, () => (failure ? done(failure) : done(undefined, { entries, more })));
    const next = () =>
      sftp.readdir(handle, (err, list) => {
        if (err) return (err as { code?: number }).code === EOF ? finish(undefined, false) : finish(err, false);
        for (const { filename, attrs } of list as Array<{ filename: string; attrs: Stats }>) {
          if (entries.length >= max) return finish(undefined, true);
          entries.push({
            name: filename,
            type: attrs.isFile() ? 'file' : attrs.isDirectory() ? 'directory' : attrs.isSymbolicLink() ? 'symlink' : 'other',
          });
        }
        next();
      });
    next();
  });
}
