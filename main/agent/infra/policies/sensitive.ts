import type { Environment, FileInfo } from '#contract/environment';
import { basename, dirname, extname, join } from 'node:path';
import { workspaceSessionsDir } from '../sessions/store';
import { DEFT_HOME_SECRETS, SECRET_NAMES, SECRET_PLACES } from './secret-places';

const EXACT = new Set(SECRET_NAMES.flatMap((group) => group.names));
const EXEMPT = new Set(['.env.example', '.env.sample', '.env.template', 'id_rsa.pub', 'id_dsa.pub', 'id_ed25519.pub', 'id_ecdsa.pub']);
const KEY_NAMES = 'id_rsa|id_dsa|id_ed25519|id_ecdsa|credentials';
const RENAMED = new RegExp(`^(${KEY_NAMES})([-_].*|\\.(bak|backup|copy|disabled|key|old|orig|pem|save|tmp))$`);
const PUBLIC_KEY = new RegExp(`^(${KEY_NAMES.replace('|credentials', '')})([-_.].*)?\\.pub$`);
/** A process's environment and memory hold its secrets (Grep on /proc/self/environ reads Deft's own). */
const PROCESS_SECRETS = /^\/proc\/.*\/(environ|mem)$/;
// The strings each place is matched with, made once (a checkpoint store seeded from a large index asks for every path).
const PLACES = SECRET_PLACES.filter((place) => !place.byContent).map((place) => {
  const lower = place.path.toLowerCase();
  return { ...place, lower, asName: `/${lower}`, asTop: `${lower}/`, asFolder: `/${lower}/` };
});

/** A file place can match only a path with its name; a folder place only one with its first folder among the path's folders. */
const FILE_NAMES = new Set(PLACES.filter((place) => !place.dir).map((place) => place.lower.slice(place.lower.lastIndexOf('/') + 1)));
const FOLDER_NAMES = new Set(PLACES.filter((place) => place.dir).map((place) => place.lower.split('/')[0]!));

/** The secret place of the list a path lies in (at any folder), if any. */
function placeOf(normal: string, name: string): (typeof PLACES)[number] | undefined {
  if (!FILE_NAMES.has(name)) {
    const folders = normal.split('/');
    folders.pop();
    if (!folders.some((folder) => FOLDER_NAMES.has(folder))) return undefined;
  }
  return PLACES.find((place) => {
    if (!place.dir) return normal === place.lower || normal.endsWith(place.asName);
    const inside = normal.startsWith(place.asTop) || normal.includes(place.asFolder);
    return inside && !place.publicNames?.test(name);
  });
}

/** Inside Deft's home: its secrets and MCP file, the checkpoint stores, and the sessions of other workspaces. */
function deftHomeSecret(normal: string, deftHome: string, workspace: string | undefined): boolean {
  const home = deftHome.replace(/\\/g, '/').toLowerCase().replace(/\/$/, '');
  if (!normal.startsWith(`${home}/`)) return false;
  const [first = '', second] = normal.slice(home.length + 1).split('/');
  if (second === undefined) return DEFT_HOME_SECRETS.files.test(first);
  if ((DEFT_HOME_SECRETS.dirs as readonly string[]).includes(first)) return true;
  if (first !== DEFT_HOME_SECRETS.perWorkspace) return false;
  const own = workspace ? basename(workspaceSessionsDir(deftHome, workspace)).toLowerCase() : null;
  return second !== own;
}

/**
 * Files that hold secrets, by name and place (the one list, secret-places.ts): never read, written or listed
 * by the file tools, whatever the path form. Case-insensitive; `.env.example`-style templates and public keys
 * are exempt. Files whose secret shows only in their content (a `.pem` holding a private key, an `.npmrc` with
 * a token, a hard link to `.env`) are caught by `isSensitiveFile`. With `workspace`, the sessions Deft keeps
 * for other workspaces count too.
 */
export function isSensitivePath(path: string, deftHome?: string, workspace?: string): boolean {
  const normal = path.replace(/\\/g, '/').toLowerCase();
  const name = basename(normal);
  if (EXEMPT.has(name)) return false;
  // Public halves of renamed keys (`id_ed25519_work.pub`) are as harmless as `id_ed25519.pub`.
  if (PUBLIC_KEY.test(name)) return false;
  if (EXACT.has(name)) return true;
  if (name.startsWith('.env.')) return true;
  if (RENAMED.test(name)) return true;
  if (/(^|\/)\.deft\/secrets[\w.-]*\.json$/.test(normal)) return true;
  if (deftHome && deftHomeSecret(normal, deftHome, workspace)) return true;
  if (PROCESS_SECRETS.test(normal)) return true;
  return placeOf(normal, name) !== undefined;
}

/** What `isSensitivePath` of a relative path can depend on beyond its name: a folder on the list, `.deft`, `/proc`. */
function folderMayHold(folder: string): boolean {
  const normal = folder.replace(/\\/g, '/').toLowerCase();
  return normal.startsWith('/') || normal.split('/').some((part) => FOLDER_NAMES.has(part) || part === '.deft');
}

/** Whether `isSensitivePath` can hold for a file of this (lower-case) name outside the folders `folderMayHold` names. */
function nameMayBe(name: string): boolean {
  return EXACT.has(name) || FILE_NAMES.has(name) || name.startsWith('.env.') || RENAMED.test(name);
}

/**
 * Many workspace-relative paths at once (a git index's): those `isSensitivePath` holds for, and those whose name says
 * their content must be looked at (SECRET_BY_CONTENT). The same answers as asking each, with what depends on a folder
 * decided once per folder and a quick look at each name first (a 20,000-file index is sorted in a few milliseconds).
 */
export function sortSecretPaths(paths: Iterable<string>): { secret: string[]; byContent: string[] } {
  const secret: string[] = [];
  const byContent: string[] = [];
  const folders = new Map<string, boolean>();
  for (const path of paths) {
    const slash = path.lastIndexOf('/');
    const folder = slash < 0 ? '' : path.slice(0, slash);
    const name = path.slice(slash + 1);
    let inFolder = folders.get(folder);
    if (inFolder === undefined) folders.set(folder, (inFolder = folderMayHold(folder)));
    // A backslash is a separator to isSensitivePath: such a path is asked whole.
    if ((inFolder || !name || name.includes('\\') || nameMayBe(name.toLowerCase())) && isSensitivePath(path)) secret.push(path);
    else if (SECRET_BY_CONTENT.test(name)) byContent.push(path);
  }
  return { secret, byContent };
}

/**
 * A pattern that every path `sortSecretPaths` sorts out matches (one `isSensitivePath` holds for, or one whose name
 * SECRET_BY_CONTENT names), and few others do, so a caller with many paths (a git index's 20,000) asks
 * `sortSecretPaths` only about those it matches, with no string made per path beyond the one tested. Made of the
 * list's own words, each matched anywhere in the path and in any case: the names on it, its file places' names and
 * its folder places' first folders, `.deft`, `.env.`, the key names a renamed key starts with, and SECRET_BY_CONTENT;
 * and of what could turn into one of them when the path is lower-cased or its backslashes read as separators (any
 * character that is not ASCII, a backslash), a leading or trailing slash and an empty path. `extra`: more words
 * (plain strings) that match the same way.
 */
export function secretPathHint(extra: readonly string[] = []): RegExp {
  const words = [...EXACT, ...FILE_NAMES, ...FOLDER_NAMES, '.deft', '.env.', ...KEY_NAMES.split('|'), ...extra];
  const literal = (word: string) => word.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');
  return new RegExp([...new Set(words)].map(literal).concat(SECRET_BY_CONTENT.source, '[^\\x00-\\x7f]', '\\\\', '^/', '/$', '^$').join('|'), 'i');
}

/** Names of files whose secret shows only in their content (`isSensitiveFile` looks): key files and stores, token rc files. */
export const SECRET_BY_CONTENT = /\.(pem|key|p8|ppk|asc|gpg|p12|pfx|jks|keystore)$|(^|\/)\.(npmrc|yarnrc|yarnrc\.yml)$/i;

const KEY_FILES = new Set(['.pem', '.key', '.p8', '.ppk', '.asc', '.gpg']);
const KEY_STORES = new Set(['.p12', '.pfx', '.jks', '.keystore']);
const TOKEN_RC = new Set([...SECRET_PLACES.filter((place) => place.byContent).map((place) => basename(place.path)), '.yarnrc']);

async function head(environment: Environment, path: string, bytes = 64 * 1024): Promise<string> {
  const reader = await environment.openRead(path);
  try {
    const buffer = Buffer.alloc(bytes);
    const read = await reader.read(buffer, 0, bytes);
    return buffer.subarray(0, read).toString('latin1');
  } finally {
    await reader.close();
  }
}

/**
 * Whether an existing file holds secrets: by name and place, or by what it is — a key file with a
 * private key in it, a key store, an `.npmrc`/`.yarnrc` with a token, or a hard link to a secret file
 * beside it (or at the workspace root).
 */
export async function isSensitiveFile(
  environment: Environment,
  path: string,
  options: { deftHome?: string; workspace?: string; info?: FileInfo | null; head?: Buffer } = {},
): Promise<boolean> {
  if (isSensitivePath(path, options.deftHome, options.workspace)) return true;
  // `info`: the file's stat already taken (the path guard asks for it with the real path).
  const info = options.info !== undefined ? options.info : await environment.stat(path).catch(() => null);
  if (!info?.isFile()) return false;
  const name = basename(path).toLowerCase();
  const ext = extname(name);
  // `head`: the file's bytes already read with its stat (the path guard's one-round-trip read).
  const firstBytes = () => (options.head ? Promise.resolve(options.head.subarray(0, 64 * 1024).toString('latin1')) : head(environment, path));
  try {
    if (KEY_STORES.has(ext)) return true;
    if (KEY_FILES.has(ext) && /PRIVATE KEY|PRIVATE KEY BLOCK/.test(await firstBytes())) return true;
    if (TOKEN_RC.has(name) && /(_authToken|_auth\s*=|_password|npmAuthToken|npmAuthIdent)/i.test(await firstBytes())) return true;
  } catch {
    return false;
  }
  if (info.nlink > 1) {
    for (const folder of new Set([dirname(path), ...(options.workspace ? [options.workspace] : [])])) {
      const names = await environment.readdir(folder).catch(() => []);
      for (const { name: other } of names) {
        if (!isSensitivePath(other)) continue;
        const twin = await environment.stat(join(folder, other)).catch(() => null);
        if (twin && twin.ino === info.ino && twin.dev === info.dev) return true;
      }
    }
  }
  return false;
}
