import type { ScriptRequest, ScriptResult } from '#contract/environment';

/**
 * A whole small file with its real path, its stat and the real paths of the roots, in ONE script on the helper
 * shell (one round trip, where SFTP needs four: the guard's realpaths and stat, the tool's stat, open, fstat and
 * read). The file is opened once, by the path as given; its real path is then what the kernel says of the OPEN
 * file (`readlink /proc/self/fd/3`), its stat is the open file's (`stat -L` on the same fd link) and its bytes are
 * read from that fd: the three describe one file, whatever is swapped on the path meanwhile. What remains is a
 * swap between the `-f` test and the open (a FIFO put there then blocks the open: the helper waits until the turn
 * is stopped, as a local open would), and a change after the read (any read is a snapshot).
 *
 * GNU coreutils and Linux's /proc are needed (`readlink -z`, `realpath -z`, `stat --printf`); `PROBE` tells.
 * Anything but the plain case — not a regular file, missing, a root that does not resolve, a tool that fails —
 * exits non-zero, and the caller takes the SFTP path, which says what is wrong in the usual words.
 *
 * Arguments: $1 the most bytes wanted, $2 the path (absolute), $3… the roots. Output: the file's real path NUL,
 * each root's real path NUL, `SIZE MODE(hex) MTIME(s)` NUL, then the bytes (at most $1 + 1 of them).
 */
export const READ_SCRIPT = [
  'LC_ALL=C; export LC_ALL',
  'deft_max=$1; deft_path=$2; shift 2',
  '[ -f "$deft_path" ] || exit 93',
  '{ exec 3<"$deft_path"; } 2>/dev/null || exit 93',
  'readlink -z /proc/self/fd/3 || exit 94',
  '[ "$#" -eq 0 ] || realpath -e -z -- "$@" || exit 94',
  "stat -L --printf '%s %f %Y\\0' /proc/self/fd/3 || exit 94",
  'head -c "$((deft_max + 1))" <&3 || exit 94',
  'exec 3<&-',
].join('\n');

/** Whether the machine has what READ_SCRIPT needs (exit 0), run once per connection. */
export const PROBE_SCRIPT = [
  'LC_ALL=C; export LC_ALL',
  'exec 3</ || exit 1',
  'readlink -z /proc/self/fd/3 >/dev/null 2>&1 || exit 1',
  'realpath -e -z -- / >/dev/null 2>&1 || exit 1',
  "stat -L --printf '%s %f %Y' /proc/self/fd/3 >/dev/null 2>&1 || exit 1",
  'head -c 1 </dev/null >/dev/null 2>&1 || exit 1',
].join('\n');

/** What READ_SCRIPT answered: null for anything but a whole regular file of at most `maxBytes`. */
export interface ReadAnswer {
  real: string;
  roots: string[];
  size: number;
  mode: number;
  mtimeSeconds: number;
  bytes: Buffer;
}

export function readRequest(path: string, roots: readonly string[], maxBytes: number): ScriptRequest {
  return { script: READ_SCRIPT, args: [String(maxBytes), path, ...roots], cwd: '/' };
}

/** The script's answer taken apart, or null when it is not the plain case (the caller reads over SFTP instead). */
export function parseReadAnswer(result: ScriptResult, rootCount: number, maxBytes: number): ReadAnswer | null {
  if (result.code !== 0) return null;
  const out = result.stdout;
  const fields: string[] = [];
  let at = 0;
  for (let i = 0; i < rootCount + 2; i++) {
    const end = out.indexOf(0, at);
    if (end === -1) return null;
    fields.push(out.subarray(at, end).toString('utf8'));
    at = end + 1;
  }
  const [real, ...rest] = fields;
  const statLine = rest.pop()!;
  const match = /^(\d+) ([0-9a-f]+) (\d+)$/.exec(statLine);
  if (!real || !real.startsWith('/') || !match || rest.some((root) => !root.startsWith('/'))) return null;
  const size = Number(match[1]);
  const mode = parseInt(match[2]!, 16);
  const bytes = out.subarray(at);
  // Not a regular file by the open file's own stat, larger than asked, or changed while it was read (a size that
  // is not the bytes read: a growing log, a /proc file whose size says 0): read over SFTP, as before.
  if ((mode & 0o170000) !== 0o100000 || size > maxBytes || bytes.length !== size) return null;
  // A real path the kernel marks as gone (`… (deleted)`) or that names no file now is not one the guard can judge.
  if (real.endsWith(' (deleted)')) return null;
  return { real, roots: rest, size, mode, mtimeSeconds: Number(match[3]), bytes: Buffer.from(bytes) };
}

/**
 * An atomic replace in ONE script on the helper shell (where SFTP needs three round trips): the new bytes are the
 * script's stdin, which the helper has written whole to a file of its own before the script starts (a request cut
 * off by a dropped link never runs: no temp file, no torn file). In the folder (entered with `cd -P`, checked to be
 * the real path given: a folder swapped for a link is refused), the temp file is created with O_EXCL (noclobber)
 * beside the target — 0600 when the target exists, its mode set after the bytes; for a new file with the login's
 * umask, as a plain create — written, fsync'd (`sync FILE`), the folder checked again, then renamed over the target
 * (`mv -T`: rename(2) in the same folder), and the target's stat printed.
 *
 * Arguments: $1 the folder (real), $2 the name, $3 the temp's name, $4 `SIZE MTIME(s)` the target must still have
 * (or empty). Output: `SIZE MODE(hex) MTIME(s)` of the file
 * after the rename (nothing when it is gone by then). Exit 96: the folder is not where it was resolved; 98: the
 * target is not as expected (changed, or gone), nothing written; any other
 * failure non-zero, the temp removed: the caller replaces over SFTP instead, which says what is wrong.
 */
export const REPLACE_SCRIPT = [
  'LC_ALL=C; export LC_ALL',
  'cd -P -- "$1" 2>/dev/null || exit 95',
  'deft_here=$(pwd -P; echo x); [ "${deft_here%?x}" = "$1" ] || exit 96',
  'deft_mode=',
  // $4: the size and time (s) the file must still have (the stale guard's), or empty: exit 98 when it has not.
  'if [ -e "$2" ]; then deft_now=$(stat -L --printf \'%s %Y %a\' -- "$2") || exit 97; deft_mode=${deft_now##* }',
  '  [ -z "$4" ] || [ "${deft_now% *}" = "$4" ] || exit 98',
  'else [ -z "$4" ] || exit 98; fi',
  'if [ -n "$deft_mode" ]; then (set -C; umask 077; cat >"$3") 2>/dev/null; else (set -C; cat >"$3") 2>/dev/null; fi || { rm -f -- "$3"; exit 99; }',
  '[ -z "$deft_mode" ] || chmod -- "$deft_mode" "$3" || { rm -f -- "$3"; exit 99; }',
  'sync -- "$3" 2>/dev/null',
  'deft_here=$(pwd -P; echo x); [ "${deft_here%?x}" = "$1" ] || { rm -f -- "$3"; exit 96; }',
  'mv -f -T -- "$3" "$2" || { rm -f -- "$3"; exit 99; }',
  'stat -L --printf \'%s %f %Y\' -- "$2" 2>/dev/null',
  'exit 0',
].join('\n');

/** Bytes up to this many are replaced with one script (they travel inside the helper's request text). */
export const REPLACE_SCRIPT_MAX_BYTES = 1024 * 1024;

/** The stat REPLACE_SCRIPT printed: null when the file was gone after the rename. */
export function parseStatLine(stdout: Buffer): { size: number; mode: number; mtimeSeconds: number } | null {
  const match = /^(\d+) ([0-9a-f]+) (\d+)$/.exec(stdout.toString('latin1'));
  return match ? { size: Number(match[1]), mode: parseInt(match[2]!, 16), mtimeSeconds: Number(match[3]) } : null;
}
