import type { Environment } from '#contract/environment';
import { ToolInputError } from '#contract/tool';

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
  /** The machine the search runs on (the session's Environment). */
  environment: Environment;
  cwd: string;
  signal: AbortSignal;
  timeoutMs?: number;
  maxBytes?: number;
  /** Called with each complete output line as rg prints it (work overlaps the search). */
  onLine?: (line: string) => void;
}

export const RG_TIMEOUT_MS = 20_000;
export const RG_MAX_BYTES = 10 * 1024 * 1024;

async function once(args: string[], options: RgOptions): Promise<RgResult> {
  const maxBytes = options.maxBytes ?? RG_MAX_BYTES;
  const controller = new AbortController();
  const child = await options.environment.search(args, { cwd: options.cwd, signal: controller.signal }).catch((error: Error) => {
    // No ripgrep on that machine (or a search its grep stand-in cannot do): the backend's message says what to do.
    throw new ToolInputError(error.message);
  });
  const out: Buffer[] = [];
  let outBytes = 0;
  let err = '';
  let timedOut = false;
  let capped = false;
  const stop = () => controller.abort();
  const timer = setTimeout(() => {
    timedOut = true;
    stop();
  }, options.timeoutMs ?? RG_TIMEOUT_MS);
  options.signal.addEventListener('abort', stop, { once: true });
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
  const exit = await child.exit;
  clearTimeout(timer);
  options.signal.removeEventListener('abort', stop);
  if (exit.error) throw new ToolInputError(`ripgrep could not start: ${exit.error.message}`);
  return { stdout: Buffer.concat(out, outBytes), stderr: err, exitCode: timedOut || capped || options.signal.aborted ? null : exit.code, timedOut, capped };
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
