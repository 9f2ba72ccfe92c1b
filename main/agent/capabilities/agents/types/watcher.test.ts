import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '#test-support/harness';
import { waitFor } from '#test-support/wait';
import { type DefinitionWatcher, watchDefinitionFolders } from './watcher';

let watcher: DefinitionWatcher | undefined;
afterEach(async () => {
  await watcher?.close();
  watcher = undefined;
});

describe('watching sub-agent definition folders', () => {
  it('notices a definition folder that appears later, its Markdown files changing and going, once per burst', async () => {
    const root = await tempDir();
    const folder = join(root, '.deft', 'agents');
    let changes = 0;
    watcher = watchDefinitionFolders([folder], () => changes++, 50);
    await watcher.ready;
    await mkdir(folder, { recursive: true });
    await writeFile(join(folder, 'reviewer.md'), '---\nname: reviewer\ndescription: reviews\n---\nReview.');
    await waitFor(() => changes > 0);
    const afterCreate = changes;
    await writeFile(join(folder, 'reviewer.md'), '---\nname: reviewer\ndescription: reviews code\n---\nReview.');
    await waitFor(() => changes > afterCreate);
    const afterEdit = changes;
    await rm(join(folder, 'reviewer.md'));
    await waitFor(() => changes > afterEdit);
  });

  it('ignores what the catalog does not read: other files, deeper folders, the rest of the workspace', async () => {
    const root = await tempDir();
    const folder = join(root, '.deft', 'agents');
    await mkdir(join(folder, 'deeper'), { recursive: true });
    let changes = 0;
    watcher = watchDefinitionFolders([folder], () => changes++, 20);
    await watcher.ready;
    await writeFile(join(folder, 'notes.txt'), 'not a definition');
    await writeFile(join(folder, 'deeper', 'x.md'), 'not read');
    await writeFile(join(root, 'src.md'), 'workspace file');
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(changes).toBe(0);
    await writeFile(join(folder, 'last.md'), '---\nname: last\ndescription: d\n---\nx');
    await waitFor(() => changes > 0);
  });
});
