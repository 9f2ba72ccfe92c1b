import { createRequire } from 'node:module';
import { delimiter, join } from 'node:path';
import { isExecutable } from '../../platform/executable';

let located: string | null | undefined;

/** Why there is no ripgrep here, as the model and the user read it. */
export const NO_RIPGREP =
  "ripgrep (rg) is not available, so Grep and Glob cannot run. Reinstall Deft's dependencies (npm ci) or install ripgrep and put rg on PATH; meanwhile use Read on known paths.";

/**
 * The ripgrep binary: the one shipped by @vscode/ripgrep (from its per-platform npm package; inside
 * a packaged app, from the unpacked asar), else `rg` on PATH. Null when there is none.
 */
export function findRipgrep(): string | null {
  if (located !== undefined) return located;
  const require = createRequire(import.meta.url);
  const binary = process.platform === 'win32' ? 'rg.exe' : 'rg';
  const candidates: string[] = [];
  try {
    const arch = process.env.npm_config_arch || process.arch;
    candidates.push(require.resolve(`@vscode/ripgrep-${process.platform}-${arch}/bin/${binary}`).replace(/\bapp\.asar\b(?!\.unpacked)/, 'app.asar.unpacked'));
  } catch {
    // The optional per-platform package is missing: fall back to PATH.
  }
  for (const dir of (process.env.PATH ?? '').split(delimiter)) if (dir) candidates.push(join(dir, binary));
  located = candidates.find(isExecutable) ?? null;
  return located;
}

/** The ripgrep binary, or an error saying how to get one. */
export function ripgrepPath(): string {
  const found = findRipgrep();
  if (!found) throw Object.assign(new Error(NO_RIPGREP), { code: 'ENORG' });
  return found;
}
