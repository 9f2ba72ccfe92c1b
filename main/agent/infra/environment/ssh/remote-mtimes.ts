import type { ScriptRequest, ScriptResult } from '#contract/environment';

/** The exit code of the script below when the machine's `stat` cannot print a batch (not GNU coreutils'). */
const NO_BATCH_STAT = 90;

/**
 * Paths (NUL-separated on stdin) in, `SECONDS PATH\0` out for each one that exists (links followed, as SFTP's stat
 * does; whole seconds, as SFTP v3 gives them, so the order is the one per-file stats give). One `stat` process per
 * ARG_MAX's worth of paths (xargs), none per file. A `stat` without `--printf` (BusyBox, BSD) exits 90.
 */
export const MTIMES_SCRIPT = [
  `command -v xargs >/dev/null 2>&1 && stat -L --printf '' -- / >/dev/null 2>&1 || exit ${NO_BATCH_STAT}`,
  `xargs -0 stat -L --printf '%Y %n\\0' -- 2>/dev/null`,
  'exit 0',
].join('\n');

/** Paths per script: the input travels inside the helper's request text, so it is kept to a few hundred KiB. */
export const MTIMES_PER_SCRIPT = 4096;

/** What the batch needs of the connection: a script on its helper shell. */
export type RunScript = (request: ScriptRequest) => Promise<ScriptResult>;

/** Times (ms) from the script's output, in the order of `paths`; -Infinity for a path it did not print. */
export function parseMtimes(paths: readonly string[], stdout: Buffer): Float64Array {
  const seen = new Map<string, number>();
  for (const record of stdout.toString('utf8').split('\0')) {
    const space = record.indexOf(' ');
    if (space <= 0) continue;
    const seconds = Number(record.slice(0, space));
    if (Number.isFinite(seconds)) seen.set(record.slice(space + 1), seconds * 1000);
  }
  return Float64Array.from(paths, (path) => seen.get(path) ?? -Infinity);
}

/**
 * Modification times of many files with one script on the helper shell per MTIMES_PER_SCRIPT paths: no SFTP call,
 * no round trip per file. Resolves to null when the machine cannot (its `stat` has no `--printf`); rejects when the
 * script failed otherwise or the helper could not serve it. Either way the caller stats over SFTP instead.
 */
export async function batchMtimes(run: RunScript, cwd: string, paths: readonly string[]): Promise<Float64Array | null> {
  const times = new Float64Array(paths.length);
  for (let start = 0; start < paths.length; start += MTIMES_PER_SCRIPT) {
    const chunk = paths.slice(start, start + MTIMES_PER_SCRIPT);
    const result = await run({ script: MTIMES_SCRIPT, args: [], cwd, input: Buffer.from(chunk.join('\0') + '\0', 'utf8') });
    if (result.code === NO_BATCH_STAT) return null;
    if (result.code !== 0) throw new Error(`The batch stat exited with ${result.code}: ${result.stderr.toString('utf8').slice(0, 200)}`);
    times.set(parseMtimes(chunk, result.stdout), start);
  }
  return times;
}
