import { basename } from 'node:path';

const EXACT = new Set(['.env', 'id_rsa', 'id_ed25519', 'id_ecdsa', 'credentials']);
const EXEMPT = new Set(['.env.example', '.env.sample', '.env.template', 'id_rsa.pub', 'id_ed25519.pub', 'id_ecdsa.pub']);
const RENAMED = /^(id_rsa|id_ed25519|id_ecdsa|credentials)([-_].*|\.(bak|backup|copy|disabled|key|old|orig|pem|save|tmp))$/;
const PUBLIC_KEY = /^(id_rsa|id_ed25519|id_ecdsa)([-_.].*)?\.pub$/;
const CLOUD = /(^|[\\/])\.(aws|gcp)[\\/]credentials$/;

/**
 * Files that hold secrets: never read, written or listed by the file tools, whatever the path form.
 * Case-insensitive; `.env.example`-style templates and public keys are exempt.
 */
export function isSensitivePath(path: string): boolean {
  const normal = path.replace(/\\/g, '/').toLowerCase();
  const name = basename(normal);
  if (EXEMPT.has(name)) return false;
  // Public halves of renamed keys (`id_ed25519_work.pub`) are as harmless as `id_ed25519.pub`.
  if (PUBLIC_KEY.test(name)) return false;
  if (EXACT.has(name)) return true;
  if (name.startsWith('.env.')) return true;
  if (RENAMED.test(name)) return true;
  return CLOUD.test(normal) || normal.includes('/.aws/credentials/') || normal.includes('/.gcp/credentials/');
}
