import { createHash, randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { posix } from 'node:path';
import type { Environment } from '#contract/environment';
import { findRipgrep } from '../local/ripgrep-binary';
import { shellQuote } from './sftp-errors';

/** A ripgrep binary on this machine, and the OS/arch it runs on (node's names). */
export interface LocalRipgrep {
  path: string;
  platform: string;
  arch: string;
}

/** The bundled ripgrep (or the one on PATH), for this machine's platform and arch; null when there is none. */
export function bundledRipgrep(): LocalRipgrep | null {
  const path = findRipgrep();
  return path ? { path, platform: process.platform, arch: process.env.npm_config_arch || process.arch } : null;
}

const OS: Record<string, string> = { Linux: 'linux', Darwin: 'darwin', FreeBSD: 'freebsd' };
const ARCH: Record<string, string> = { x86_64: 'x64', amd64: 'x64', aarch64: 'arm64', arm64: 'arm64', i686: 'ia32', i386: 'ia32', armv7l: 'arm' };

/** What the upload needs of the remote machine: its files (SFTP) and a short command's output. */
export type RemoteMachine = Pick<Environment, 'mkdir' | 'writeFile' | 'chmod' | 'rename' | 'rm' | 'stat'> & {
  home: string;
  run(command: string): Promise<{ stdout: string; code: number | null }>;
};

/** Prints the sha256 (64 hex) of "$1", or nothing when the machine has no sha256sum/shasum. */
const HASH = `h() { if command -v sha256sum >/dev/null 2>&1; then sha256sum -- "$1" | cut -c1-64; elif command -v shasum >/dev/null 2>&1; then shasum -a 256 "$1" | cut -c1-64; fi; }`;

async function remoteHash(machine: RemoteMachine, path: string): Promise<string> {
  return (await machine.run(`${HASH}; h ${shellQuote(path)} 2>/dev/null`)).stdout.trim();
}

/**
 * Put `local` on the remote machine as `~/.deft/bin/rg-<16 hex of its sha256>`, unless the machine's OS/arch differ:
 * an existing file there is used only if its hash matches; otherwise it is uploaded under a temporary name,
 * made executable, its hash checked there and only then renamed into place. Nothing whose hash does not match is
 * ever run. Returns the path, or why not (for the notice).
 */
export async function provideRipgrep(machine: RemoteMachine, local: LocalRipgrep | null): Promise<{ path: string } | { reason: string }> {
  if (!local) return { reason: 'this machine has no ripgrep to upload' };
  const [system = '', machineArch = '', hasher = ''] = (
    await machine.run('uname -s; uname -m; command -v sha256sum || command -v shasum || echo')
  ).stdout.split('\n');
  const os = OS[system.trim()] ?? system.trim();
  const arch = ARCH[machineArch.trim()] ?? machineArch.trim();
  if (os !== local.platform || arch !== local.arch)
    return { reason: `it is ${system.trim() || 'an unknown system'} ${machineArch.trim()}, and the bundled ripgrep is for ${local.platform} ${local.arch}` };
  if (!hasher.trim()) return { reason: 'it has no sha256sum or shasum to check an upload with' };
  const bytes = await readFile(local.path);
  const sha = createHash('sha256').update(bytes).digest('hex');
  const dir = posix.join(machine.home, '.deft', 'bin');
  const path = posix.join(dir, `rg-${sha.slice(0, 16)}`);
  if ((await remoteHash(machine, path)) === sha) return { path };
  try {
    for (const folder of [posix.join(machine.home, '.deft'), dir]) {
      if (!(await machine.stat(folder).catch(() => null))) await machine.mkdir(folder, { mode: 0o700 }).catch(() => {});
    }
    const temp = `${path}.${randomBytes(5).toString('hex')}.tmp`;
    try {
      await machine.writeFile(temp, bytes, { flag: 'wx', mode: 0o700 });
      await machine.chmod(temp, 0o755);
      const there = await remoteHash(machine, temp);
      if (there !== sha) return { reason: `the uploaded copy's sha256 there (${there || 'none'}) is not the bundled one's` };
      await machine.rename(temp, path);
    } finally {
      await machine.rm(temp, { force: true }).catch(() => {});
    }
  } catch (error) {
    return { reason: `uploading it failed: ${(error as Error).message}` };
  }
  // Checked again in place: what runs is what was verified.
  return (await remoteHash(machine, path)) === sha ? { path } : { reason: `the copy at ${path} does not have the bundled one's sha256` };
}
