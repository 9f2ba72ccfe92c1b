import { open, readdir, stat } from 'node:fs/promises';
import { basename, dirname, extname, join } from 'node:path';

const EXACT = new Set([
  '.env',
  '.envrc',
  'id_rsa',
  'id_dsa',
  'id_ed25519',
  'id_ecdsa',
  'id_ed25519_sk',
  'id_ecdsa_sk',
  'credentials',
  '.git-credentials',
  '.netrc',
  '_netrc',
  '.pypirc',
  'application_default_credentials.json',
  'credentials.db',
  'access_tokens.db',
  'legacy_credentials',
  'accesstokens.json',
  'msal_token_cache.json',
  'credentials.toml',
  'credentials.tfrc.json',
]);
const EXEMPT = new Set(['.env.example', '.env.sample', '.env.template', 'id_rsa.pub', 'id_dsa.pub', 'id_ed25519.pub', 'id_ecdsa.pub']);
const KEY_NAMES = 'id_rsa|id_dsa|id_ed25519|id_ecdsa|credentials';
const RENAMED = new RegExp(`^(${KEY_NAMES})([-_].*|\\.(bak|backup|copy|disabled|key|old|orig|pem|save|tmp))$`);
const PUBLIC_KEY = new RegExp(`^(${KEY_NAMES.replace('|credentials', '')})([-_.].*)?\\.pub$`);
// Credential stores named by where they are (lower case, / separators).
const STORES = [
  /(^|\/)\.(aws|gcp)\/(credentials|config)$/,
  /(^|\/)\.(aws|gcp)\/credentials\//,
  /(^|\/)\.docker\/config\.json$/,
  /(^|\/)\.kube\/config$/,
  /(^|\/)\.config\/gcloud\//,
  /(^|\/)\.config\/gh\/hosts\.ya?ml$/,
  /(^|\/)\.config\/git\/credentials$/,
  /(^|\/)\.azure\//,
  /(^|\/)\.gnupg\//,
  /(^|\/)\.password-store\//,
  /(^|\/)\.deft\/secrets[\w.-]*\.json$/,
  // A process's environment and memory hold its secrets (Grep on /proc/self/environ reads Deft's own).
  /^\/proc\/.*\/(environ|mem)$/,
];
/** Files in ~/.ssh that are not secrets. */
const SSH_PUBLIC = /^(known_hosts(\.old)?|config|authorized_keys|.*\.pub)$/;

/**
 * Files that hold secrets, by name and place: never read, written or listed by the file tools, whatever
 * the path form. Case-insensitive; `.env.example`-style templates and public keys are exempt. Files
 * whose secret shows only in their content (a `.pem` holding a private key, an `.npmrc` with a token, a
 * hard link to `.env`) are caught by `isSensitiveFile`.
 */
export function isSensitivePath(path: string, deftHome?: string): boolean {
  const normal = path.replace(/\\/g, '/').toLowerCase();
  const name = basename(normal);
  if (EXEMPT.has(name)) return false;
  // Public halves of renamed keys (`id_ed25519_work.pub`) are as harmless as `id_ed25519.pub`.
  if (PUBLIC_KEY.test(name)) return false;
  if (EXACT.has(name)) return true;
  if (name.startsWith('.env.')) return true;
  if (RENAMED.test(name)) return true;
  if (/(^|\/)\.ssh\/[^/]+$/.test(normal) && !SSH_PUBLIC.test(name)) return true;
  if (deftHome && /^secrets[\w.-]*\.json$/.test(name) && dirname(normal) === deftHome.replace(/\\/g, '/').toLowerCase()) return true;
  return STORES.some((pattern) => pattern.test(normal));
}

const KEY_FILES = new Set(['.pem', '.key', '.p8', '.ppk', '.asc', '.gpg']);
const KEY_STORES = new Set(['.p12', '.pfx', '.jks', '.keystore']);
const TOKEN_RC = new Set(['.npmrc', '.yarnrc.yml', '.yarnrc']);

async function head(path: string, bytes = 64 * 1024): Promise<string> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(bytes);
    const { bytesRead } = await handle.read(buffer, 0, bytes, 0);
    return buffer.subarray(0, bytesRead).toString('latin1');
  } finally {
    await handle.close();
  }
}

/**
 * Whether an existing file holds secrets: by name and place, or by what it is — a key file with a
 * private key in it, a key store, an `.npmrc`/`.yarnrc` with a token, or a hard link to a secret file
 * beside it (or at the workspace root).
 */
export async function isSensitiveFile(path: string, options: { deftHome?: string; workspace?: string } = {}): Promise<boolean> {
  if (isSensitivePath(path, options.deftHome)) return true;
  const info = await stat(path).catch(() => null);
  if (!info?.isFile()) return false;
  const name = basename(path).toLowerCase();
  const ext = extname(name);
  try {
    if (KEY_STORES.has(ext)) return true;
    if (KEY_FILES.has(ext) && /PRIVATE KEY|PRIVATE KEY BLOCK/.test(await head(path))) return true;
    if (TOKEN_RC.has(name) && /(_authToken|_auth\s*=|_password|npmAuthToken|npmAuthIdent)/i.test(await head(path))) return true;
  } catch {
    return false;
  }
  if (info.nlink > 1) {
    for (const folder of new Set([dirname(path), ...(options.workspace ? [options.workspace] : [])])) {
      const names = await readdir(folder).catch(() => [] as string[]);
      for (const other of names) {
        if (!isSensitivePath(other)) continue;
        const twin = await stat(join(folder, other)).catch(() => null);
        if (twin && twin.ino === info.ino && twin.dev === info.dev) return true;
      }
    }
  }
  return false;
}
