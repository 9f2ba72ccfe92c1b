import { pathToFileURL } from 'node:url';

/** A path as the `file:` URI language servers speak. */
export const fileUri = (path: string): string => pathToFileURL(path).href;
