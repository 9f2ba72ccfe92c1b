import { isAbsolute, resolve } from 'node:path';
import type { SandboxBlock } from '#contract/sandbox';
import type { FilesystemPolicy } from './filesystem-policy';

// What programs print when the sandbox refuses a write: bash, coreutils, git, Python, Node, Go…
const READ_ONLY = /(?:read-only file system|EROFS)/i;
// `bash: line 1: x: Read-only file system`, `touch: cannot touch 'x': Read-only…`, `EROFS: …, open 'x'`, `[Errno 30] Read-only file system: 'x'`.
const BEFORE = /(?:^|\s)['"‘`]?([^\s'"‘’`]+?)['"’`]?: Read-only file system/i;
const QUOTED = /['"‘`]([^'"’`\n]+)['"’`]/g;

function pathIn(line: string, cwd: string): string | null {
  const quoted = [...line.matchAll(QUOTED)].map((m) => m[1]!).filter((p) => p.includes('/') || p.startsWith('.'));
  const candidate = quoted.at(-1) ?? BEFORE.exec(line)?.[1] ?? null;
  if (!candidate) return null;
  return isAbsolute(candidate) ? resolve(candidate) : resolve(cwd, candidate);
}

function isWithin(root: string, path: string): boolean {
  return path === root || path.startsWith(root.endsWith('/') ? root : `${root}/`);
}

/** How to allow a blocked write, in one line. */
export function writeHint(path: string, policy: FilesystemPolicy): string {
  const denied = policy.protectedPaths.find((p) => isWithin(p, path));
  if (denied)
    return `${denied} is protected (Deft's home and settings, git hooks and config): commands never write there; change it yourself if it must change.`;
  return 'Outside the folders commands may write to (the workspace and the session temp folder). Add its folder to "sandbox.filesystem.allowWrite" in .deft/settings.local.json to allow it.';
}

/** Writes a command's output reports as refused by the read-only sandbox mounts, with how to allow each. */
export function blockedWrites(output: string, policy: FilesystemPolicy, cwd: string): SandboxBlock[] {
  const found = new Map<string, SandboxBlock>();
  for (const line of output.split('\n')) {
    // bubblewrap's own failure to set the sandbox up is no write the command made.
    if (!READ_ONLY.test(line) || line.startsWith('bwrap: ')) continue;
    const path = pathIn(line, cwd);
    if (path && !found.has(path)) found.set(path, { kind: 'write', target: path, hint: writeHint(path, policy) });
    if (found.size >= 10) break;
  }
  return [...found.values()];
}

/** The hint for a refused connection. */
export function networkHint(host: string, port: number, headless: boolean): string {
  const entry = port === 80 || port === 443 ? host : `${host}:${port}`;
  return headless
    ? `Add "${entry}" to "sandbox.network.allowedDomains" in .deft/settings.local.json (deft run cannot ask).`
    : `Allow it when asked, or add "${entry}" to "sandbox.network.allowedDomains" in .deft/settings.local.json.`;
}
