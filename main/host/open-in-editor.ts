import { stat } from 'node:fs/promises';
import { extname } from 'node:path';

/**
 * Text and source files the system may open in their usual app. Anything else — scripts the system would
 * run (.desktop, .command, .bat, .js under Windows Script Host, …), executables, files without an
 * extension — is revealed in its folder instead: a prompt-injected model can create any file, and "Open in
 * editor" must never run one.
 */
const OPENABLE = new Set(
  'txt md markdown json jsonc yaml yml toml ini cfg conf csv tsv log xml svg ts tsx mts cts jsx css scss sass less py rb go rs java kt kts scala c h cc cpp hpp cs swift php sql graphql proto lua r dart ex exs erl hs ml clj tf gradle properties lock diff patch rst tex vue svelte'.split(' '),
);

/** Whether `path` (a regular file already checked to be in the workspace) may be opened rather than revealed. */
export async function mayOpenInEditor(path: string): Promise<boolean> {
  const ext = extname(path).slice(1).toLowerCase();
  if (!OPENABLE.has(ext)) return false;
  const info = await stat(path).catch(() => null);
  // An executable bit means something meant it to run; reveal it instead.
  return !!info && info.isFile() && (process.platform === 'win32' || (info.mode & 0o111) === 0);
}
