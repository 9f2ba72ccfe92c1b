import { readdirSync } from 'node:fs';
import { isAbsolute, join, resolve, sep } from 'node:path';
import { picomatchPackage } from '#infra/platform/on-demand';
import type { PlannerFs } from '../sandbox/planner-fs';

/** What a shell word names before the command runs: paths (globs expanded on disk), or unknown with why. */
export type WordPaths = { known: true; paths: string[] } | { known: false; why: string };

export interface WordPlaces {
  /** Where the command runs (relative words resolve here); null when a `cd` made it unknown. */
  cwd: string | null;
  /** The user's home folder, for `~` and `$HOME`. */
  home: string;
  /** The machine's file system for globs (default: this one's; a remote workspace's: facts gathered there). */
  fs?: PlannerFs;
}

const MAX_MATCHES = 500;
const GLOB = /[*?[]/;
// Expansions the shell performs that Deft cannot follow: variables (other than HOME/PWD), $(…), `…`, $((…)), <(…).
const EXPANSION = /[$`]|<\(|>\(/;

/** Whether a word contains an expansion other than `~`, `$HOME`, `${HOME}`, `$PWD`, `${PWD}` at its start. */
export function hasExpansion(word: string): boolean {
  return EXPANSION.test(word.replace(/^\$\{?(HOME|PWD)\}?(?=\/|$)/, ''));
}

/** Whether a word looks like it names a path (so an expansion in it may lead anywhere). */
export function pathLike(word: string): boolean {
  return word.includes('/') || word.startsWith('~') || word.startsWith('.');
}

function expandGlob(path: string, fs?: PlannerFs): string[] | null {
  const parts = path.split(sep);
  let current = [parts[0] === '' ? sep : parts[0]!];
  for (const part of parts.slice(1)) {
    if (!part) continue;
    if (!GLOB.test(part)) {
      current = current.map((dir) => join(dir, part));
      continue;
    }
    const match = picomatchPackage()(part, { dot: part.startsWith('.'), bash: true });
    const next: string[] = [];
    for (const dir of current) {
      let names: string[];
      try {
        names = fs ? (fs.readdir(dir) ?? []).map((entry) => entry.name) : readdirSync(dir);
      } catch {
        continue;
      }
      for (const name of names) if (match(name)) next.push(join(dir, name));
      if (next.length > MAX_MATCHES) return null;
    }
    current = next;
  }
  return current;
}

/**
 * The paths a word names: `~`, `$HOME` and `$PWD` expanded, relative words resolved against `cwd`, globs
 * expanded against the file system (a glob that matches nothing is kept as written, as bash does).
 * Anything else the shell would expand makes it unknown. A `literal` word (the parser saw no expansion in
 * it: `'a$b'`) keeps its `$` as written.
 */
export function wordPaths(word: string, places: WordPlaces, literal = false): WordPaths {
  if (!literal && hasExpansion(word))
    return { known: false, why: `"${word}" depends on an expansion (a variable, $(…) or \`…\`) that is only known when the command runs` };
  const cwd = places.cwd;
  let path = word.replace(/^~(?=\/|$)/, places.home);
  if (!literal) path = path.replace(/^\$\{?HOME\}?(?=\/|$)/, places.home);
  if (!literal && /^\$\{?PWD\}?(?=\/|$)/.test(path)) {
    if (cwd === null) return { known: false, why: `"${word}" depends on a directory change Deft cannot follow` };
    path = path.replace(/^\$\{?PWD\}?/, cwd);
  }
  if (/^~[^/]/.test(path)) return { known: false, why: `"${word}" names another user's home folder` };
  if (!isAbsolute(path)) {
    if (cwd === null) return { known: false, why: `"${word}" is relative to a directory change Deft cannot follow` };
    path = resolve(cwd, path);
  } else {
    path = resolve(path);
  }
  if (!GLOB.test(path)) return { known: true, paths: [path] };
  const matches = expandGlob(path, places.fs);
  if (matches === null) return { known: false, why: `"${word}" matches more than ${MAX_MATCHES} files` };
  return { known: true, paths: matches.length ? matches : [path] };
}
