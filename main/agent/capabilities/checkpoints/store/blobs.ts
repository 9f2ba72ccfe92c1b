import { intact } from './blob-reader';
import { type GitPlaces, runGit } from './git';

/** Read this many bytes of blobs per git process at most, so a large restore never holds them all. */
const BATCH_BYTES = 64 * 1024 * 1024;

/**
 * Blob contents by id, read with one `git cat-file --batch` per batch. `sizes` (when known) keeps a
 * batch under BATCH_BYTES; `each` receives every blob as it is read, so callers can write and drop it.
 */
export async function readBlobs(
  places: GitPlaces,
  ids: readonly string[],
  each: (id: string, content: Buffer) => Promise<void> | void,
  sizes?: ReadonlyMap<string, number>,
): Promise<void> {
  const unique = [...new Set(ids.filter(Boolean))];
  for (let start = 0; start < unique.length; ) {
    let end = start;
    let bytes = 0;
    const sizeOf = (id: string) => sizes?.get(id) ?? 0;
    while (end < unique.length && (end === start || bytes + sizeOf(unique[end]!) <= BATCH_BYTES) && end - start < 2_000) bytes += sizeOf(unique[end++]!);
    const batch = unique.slice(start, end);
    const { stdout } = await runGit(places, ['cat-file', '--batch'], { input: batch.join('\n') + '\n' });
    let at = 0;
    for (const id of batch) {
      const lineEnd = stdout.indexOf(0x0a, at);
      if (lineEnd < 0) throw new Error(`git cat-file stopped early (at ${id}).`);
      const header = stdout.subarray(at, lineEnd).toString('utf8');
      at = lineEnd + 1;
      if (header.endsWith(' missing')) throw new Error(`The checkpoint store has lost object ${id}.`);
      const size = Number(header.split(' ')[2]);
      const content = stdout.subarray(at, at + size);
      if (!intact(id, header.split(' ')[1] ?? '', content))
        throw new Error(`The checkpoint store's object ${id} is damaged (its bytes do not hash to its id).`);
      await each(id, content);
      at += size + 1;
    }
    start = end;
  }
}

/** The sizes of these objects, from one `git cat-file --batch-check`. */
export async function blobSizes(places: GitPlaces, ids: readonly string[]): Promise<Map<string, number>> {
  const unique = [...new Set(ids.filter(Boolean))];
  const sizes = new Map<string, number>();
  if (!unique.length) return sizes;
  const { stdout } = await runGit(places, ['cat-file', '--batch-check'], { input: unique.join('\n') + '\n' });
  for (const line of stdout.toString('utf8').split('\n')) {
    const [id, , size] = line.split(' ');
    if (id && size !== undefined && size !== 'missing') sizes.set(id, Number(size));
  }
  return sizes;
}
