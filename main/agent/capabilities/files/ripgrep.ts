import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { delimiter, join } from 'node:path';
import { ToolInputError } from '../../contract/tool';
import { isExecutable } from '../../infra/platform/executable';

/** Version-control folders never searched or listed. */
export const VCS_DIRS = ['.git', '.svn', '.hg', '.bzr', '.jj', '.sl'];

/**
 * Arguments every search gets: hidden files in, .gitignore respected even outside a git repository,
 * and version-control folders out (after any user glob, so it cannot re-include them). Secret files
 * are filtered from the results rather than excluded here, so the model can be told how many matched.
 */
export function commonArgs(options: { lineBuffered?: boolean } = {}): string[] {
  // Line-buffered so that what a slow search found before a timeout is not lost in rg's pipe buffer.
  // A file listing is fast and long: there the per-line writes cost more (~10%) than the few names a
  // timeout could lose.
  return ['--no-config', '--hidden', '--no-require-git', ...(options.lineBuffered === false ? [] : ['--line-buffered']), '--color', 'never'];
}

export function exclusionArgs(): string[] {
  return VCS_DIRS.flatMap((dir) => ['--glob', `!${dir}`]);
}

let located: string | null | undefined;

/**
 * The ripgrep binary: the one shipped by @vscode/ripgrep (from its per-platform npm package; inside
 * a packaged app, from the unpacked asar), else `rg` on PATH.
 */
export function ripgrepPath(): string {
  if (located) return located;
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
  if (!located) {
    throw new ToolInputError('ripgrep (rg) is not available, so Grep and Glob cannot run. Reinstall Deft\'s dependencies (npm ci) or install ripgrep and put rg on PATH; meanwhile use Read on known paths.');
  }
  return located;
}

export interface RgResult {
  stdout: Buffer;
  stderr: string;
  /** null when rg was killed (timeout, cap, abort). */
  exitCode: number | null;
  timedOut: boolean;
  /** stdout hit the byte cap and rg was stopped. */
  capped: boolean;
}

export interface RgOptions {
  cwd: string;
  signal: AbortSignal;
  timeoutMs?: number;
  maxBytes?: number;
  /** Called with each complete output line as rg prints it (work overlaps the search). */
  onLine?: (line: string) => void;
}

export const RG_TIMEOUT_MS = 20_000;
export const RG_MAX_BYTES = 10 * 1024 * 1024;
const KILL_GRACE_MS = 5_000;

function once(args: string[], options: RgOptions): Promise<RgResult> {
  const maxBytes = options.maxBytes ?? RG_MAX_BYTES;
  return new Promise((resolve, reject) => {
    const child = spawn(ripgrepPath(), args, { cwd: options.cwd, stdio: ['ignore', 'pipe', 'pipe'], windowsHide: true });
    const out: Buffer[] = [];
    let outBytes = 0;
    let err = '';
    let timedOut = false;
    let capped = false;
    let killTimer: ReturnType<typeof setTimeout> | undefined;
    const stop = () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      killTimer ??= setTimeout(() => child.kill('SIGKILL'), KILL_GRACE_MS);
    };
    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, options.timeoutMs ?? RG_TIMEOUT_MS);
    const onAbort = () => stop();
    options.signal.addEventListener('abort', onAbort, { once: true });
    let partial = '';
    child.stdout.on('data', (chunk: Buffer) => {
      if (capped) return;
      const room = maxBytes - outBytes;
      const kept = chunk.length > room ? chunk.subarray(0, room) : chunk;
      out.push(kept);
      outBytes += kept.length;
      if (options.onLine) {
        const lines = (partial + kept.toString('utf8')).split('\n');
        partial = lines.pop()!;
        for (const line of lines) options.onLine(line);
      }
      if (outBytes >= maxBytes) {
        capped = true;
        stop();
      }
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (err.length < 64 * 1024) err += chunk.toString('utf8');
    });
    child.on('error', (error) => {
      clearTimeout(timer);
      options.signal.removeEventListener('abort', onAbort);
      reject(error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      clearTimeout(killTimer);
      options.signal.removeEventListener('abort', onAbort);
      resolve({ stdout: Buffer.concat(out, outBytes), stderr: err, exitCode: timedOut || capped || options.signal.aborted ? null : code, timedOut, capped });
    });
  });
}

/** Run rg; retried once single-threaded when the system refuses more threads (EAGAIN). */
export async function runRipgrep(args: string[], options: RgOptions): Promise<RgResult> {
  const result = await once(args, options);
  if (result.exitCode === 2 && /EAGAIN|Resource temporarily unavailable/i.test(result.stderr) && !options.signal.aborted) {
    return once(['-j', '1', ...args], options);
  }
  return result;
}

/** Split output into complete `\n`-terminated records; a last record cut off when rg was stopped is dropped. */
export function completeRecords(stdout: Buffer): string[] {
  const text = stdout.toString('utf8');
  const end = text.lastIndexOf('\n');
  if (end === -1) return [];
  return text.slice(0, end).split('\n');
}
