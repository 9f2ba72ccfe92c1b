import { stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '#test-support/harness';
import { FileTracker } from './file-state';

describe('FileTracker', () => {
  it('refuses unseen files, accepts unchanged ones, notices changes (mtime, size or a replaced inode), and survives a snapshot', async () => {
    const dir = await tempDir('deft-tracker-');
    const path = join(dir, 'a.txt');
    await writeFile(path, 'one');
    const tracker = new FileTracker();
    expect(tracker.refusal(path, 'a.txt', await stat(path), 'edit')).toMatch(/has not been read in this session yet/);
    tracker.record(path, await stat(path));
    expect(tracker.refusal(path, 'a.txt', await stat(path), 'edit')).toBeNull();

    const restored = new FileTracker();
    restored.restore(JSON.parse(JSON.stringify(tracker.snapshot())));
    expect(restored.refusal(path, 'a.txt', await stat(path), 'write')).toBeNull();
    expect(tracker.dirty).toBe(false);

    await writeFile(join(dir, 'b.txt'), 'two');
    const { rename } = await import('node:fs/promises');
    const before = await stat(path);
    await rename(join(dir, 'b.txt'), path);
    await utimes(path, before.atime, before.mtime);
    expect(tracker.refusal(path, 'a.txt', await stat(path), 'edit')).toMatch(/was modified on disk since you last read or wrote it/);
    restored.restore({ broken: { size: 'x' } });
    expect(restored.refusal('broken', 'broken', await stat(path), 'edit')).toMatch(/has not been read/);
  });
});
