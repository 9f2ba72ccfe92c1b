import { type Environment, HELPER_UNAVAILABLE, errorCode } from '#contract/environment';
import type { PlannerFs, PlannerNode } from './planner-fs';

/** What the planner may ask of a path: lstat, stat, realpath (`realpath -m`: the canonical form), content, entries. */
export type FactOp = 'l' | 's' | 'r' | 'c' | 'd';

/** Largest file whose content the facts carry (the planner reads HEAD, commondir, gitdir, a `.git` file, config). */
const MAX_CONTENT = 65_536;

/**
 * The script run on the other machine (POSIX sh and GNU coreutils/findutils, as on any Linux with bubblewrap): for
 * each `ops path` pair it prints what was asked, one line per fact, keyed by the pair's index — never the path, so a
 * name with odd characters cannot forge another path's line. `realpath -m` resolves the links of the part that exists
 * and keeps the rest: the planner's canonical path in one call.
 */
const SCRIPT = `i=0
while [ $# -gt 1 ]; do
  o=$1; p=$2; shift 2
  case $o in *l*) t=$(stat -c '%F|%s' -- "$p" 2>/dev/null) && printf '%s l %s\\n' "$i" "$t";; esac
  case $o in *s*) t=$(stat -L -c '%F|%s' -- "$p" 2>/dev/null) && printf '%s s %s\\n' "$i" "$t";; esac
  case $o in *r*) t=$(realpath -e -- "$p" 2>/dev/null) && printf '%s r %s\\n' "$i" "$t"; t=$(realpath -m -- "$p" 2>/dev/null) && printf '%s m %s\\n' "$i" "$t";; esac
  case $o in *c*) if [ -f "$p" ] && [ "$(stat -L -c %s -- "$p" 2>/dev/null)" -le ${MAX_CONTENT} ] 2>/dev/null; then printf '%s c %s\\n' "$i" "$(base64 -w0 < "$p" 2>/dev/null)"; fi;; esac
  case $o in *d*) if [ -d "$p" ]; then printf '%s D\\n' "$i"; find "$p" -mindepth 1 -maxdepth 1 -printf "$i d %y %f\\n" 2>/dev/null | head -n 4096; fi;; esac
  i=$((i+1))
done
printf 'end\\n'`;

function nodeFrom(text: string): PlannerNode | null {
  const bar = text.lastIndexOf('|');
  if (bar < 0) return null;
  const type = text.slice(0, bar);
  const size = Number(text.slice(bar + 1)) || 0;
  const kind = type === 'directory' ? 'dir' : type.startsWith('regular') ? 'file' : type === 'symbolic link' ? 'link' : type === 'socket' ? 'socket' : 'other';
  return { kind, size };
}

const FIND_KIND: Record<string, PlannerNode['kind']> = { d: 'dir', f: 'file', l: 'link', s: 'socket' };

interface Known {
  lstat?: PlannerNode | null;
  stat?: PlannerNode | null;
  real?: string | null;
  canonical?: string;
  content?: string | null;
  entries?: Array<{ name: string; kind: PlannerNode['kind'] }> | null;
  asked: Set<FactOp>;
}

/**
 * Facts about another machine's file system, gathered there by `gather` and read by the planner synchronously. A
 * question about a path not gathered yet is answered "missing" and noted in `wanted`: the caller gathers those and
 * plans again, until the planner asks nothing new (one round trip when the first list was complete, as it is for a
 * plain repository).
 */
export class RemoteFacts implements PlannerFs {
  private readonly known = new Map<string, Known>();
  readonly wanted = new Map<string, Set<FactOp>>();

  private look(path: string, op: FactOp): Known | null {
    const entry = this.known.get(path);
    if (entry?.asked.has(op)) return entry;
    const want = this.wanted.get(path) ?? new Set<FactOp>();
    want.add(op);
    this.wanted.set(path, want);
    return null;
  }

  lstat(path: string): PlannerNode | null {
    return this.look(path, 'l')?.lstat ?? null;
  }
  stat(path: string): PlannerNode | null {
    return this.look(path, 's')?.stat ?? null;
  }
  realpath(path: string): string | null {
    return this.look(path, 'r')?.real ?? null;
  }
  /** The canonical path there (links resolved where the path exists), or null when not gathered. */
  canonical(path: string): string | null {
    return this.look(path, 'r')?.canonical ?? null;
  }
  read(path: string, max: number): string | null {
    const content = this.look(path, 'c')?.content ?? null;
    return content !== null && Buffer.byteLength(content) <= max ? content : null;
  }
  readdir(path: string): Array<{ name: string; kind: PlannerNode['kind'] }> | null {
    return this.look(path, 'd')?.entries ?? null;
  }

  /** Ask the other machine about `paths` (each with what to learn) in one script; throws when it cannot run there. */
  async gather(environment: Environment, paths: ReadonlyMap<string, ReadonlySet<FactOp>>, signal?: AbortSignal): Promise<void> {
    const list = [...paths].filter(([path]) => path.startsWith('/') && !path.includes('\n'));
    if (!list.length) return;
    const args = list.flatMap(([path, ops]) => [[...ops].join(''), path]);
    const stdout = await runThere(environment, SCRIPT, args, signal ? { signal } : {});
    if (!/(^|\n)end\n$/.test(stdout)) throw new Error(`Could not read the file system facts the sandbox needs on ${environment.label}.`);
    const found = list.map(([, ops]): Known => ({ asked: new Set(ops), lstat: null, stat: null, real: null, content: null, entries: null }));
    for (const line of stdout.split('\n')) {
      const match = /^(\d+) ([lsrmcDd]) ?(.*)$/.exec(line);
      const entry = match && found[Number(match[1])];
      if (!entry) continue;
      const value = match[3]!;
      if (match[2] === 'l') entry.lstat = nodeFrom(value);
      else if (match[2] === 's') entry.stat = nodeFrom(value);
      else if (match[2] === 'r') entry.real = value;
      else if (match[2] === 'm') entry.canonical = value;
      else if (match[2] === 'c') entry.content = Buffer.from(value, 'base64').toString('utf8');
      else if (match[2] === 'D') entry.entries = [];
      else if (match[2] === 'd' && entry.entries) {
        const [type, ...name] = value.split(' ');
        entry.entries.push({ name: name.join(' '), kind: FIND_KIND[type!] ?? 'other' });
      }
    }
    list.forEach(([path], index) => {
      const before = this.known.get(path);
      const now = found[index]!;
      this.known.set(path, before ? mergeKnown(before, now) : now);
      this.wanted.delete(path);
    });
  }
}

function mergeKnown(before: Known, now: Known): Known {
  const merged: Known = { ...before, asked: new Set([...before.asked, ...now.asked]) };
  for (const op of now.asked) {
    if (op === 'l') merged.lstat = now.lstat ?? null;
    if (op === 's') merged.stat = now.stat ?? null;
    if (op === 'r') {
      merged.real = now.real ?? null;
      if (now.canonical !== undefined) merged.canonical = now.canonical;
    }
    if (op === 'c') merged.content = now.content ?? null;
    if (op === 'd') merged.entries = now.entries ?? null;
  }
  return merged;
}

/**
 * Run Deft's own `script` there with `args` as `$1…` and collect what it prints (stderr dropped); throws when it cannot
 * start. On the connection's helper shell where there is one (Environment.runScript: no login shell per script, which
 * costs the remote user's `.bashrc` each time), else — or with `ownProcess`, for what may wait long and must not hold
 * the helper up (a name lookup) — as a process of its own.
 */
export async function runThere(
  environment: Environment,
  script: string,
  args: readonly string[] = [],
  options: { signal?: AbortSignal; ownProcess?: boolean } = {},
): Promise<string> {
  const { signal } = options;
  if (environment.runScript && !options.ownProcess) {
    try {
      const result = await environment.runScript({ script, args, cwd: '/', ...(signal ? { signal } : {}) });
      return result.stdout.toString('utf8');
    } catch (error) {
      // The helper could not serve it (none, it died, or it would not start): a process of its own, below.
      if (errorCode(error) !== HELPER_UNAVAILABLE)
        throw new Error(`Could not run a command on ${environment.label}: ${(error as Error).message}`, { cause: error });
    }
  }
  const process = environment.exec({ file: 'sh', args: ['-c', script, 'sh', ...args], cwd: '/', ...(signal ? { signal } : {}) });
  let stdout = '';
  process.stdout.setEncoding('utf8');
  process.stdout.on('data', (chunk: string) => (stdout += chunk));
  process.stderr.resume();
  const exit = await process.exit;
  if (exit.error) throw new Error(`Could not run a command on ${environment.label}: ${exit.error.message}`);
  return stdout;
}
