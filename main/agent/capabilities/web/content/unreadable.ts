/**
 * A body FetchURL will not turn into text (an image, an archive…). Apart from convert.ts, which is loaded with
 * the first body FetchURL converts, so that a turn that fetches nothing never loads the converter.
 */
export class UnreadableContent extends Error {
  override name = 'UnreadableContent';
}
