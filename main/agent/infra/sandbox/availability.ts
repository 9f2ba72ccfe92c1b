import { delimiter, join } from 'node:path';
import { isExecutable } from '../platform/executable';

/** What this machine offers: the sandbox program, and the helpers the network proxy needs (Linux). */
export interface SandboxSupport {
  kind: 'bubblewrap' | 'seatbelt' | null;
  /** The sandbox program (bwrap, sandbox-exec). */
  program?: string;
  /** Linux: socat and nsenter, which carry the sandbox's connections to Deft's proxy. */
  socat?: string;
  nsenter?: string;
  /** Why there is no sandbox, and how to get one. */
  reason?: string;
  install?: string;
}

const LINUX_INSTALL =
  'Install bubblewrap and socat (Debian/Ubuntu: sudo apt-get install bubblewrap socat; Fedora: sudo dnf install bubblewrap socat; Arch: sudo pacman -S bubblewrap socat), then restart Deft.';

/** A program on PATH. */
export function findProgram(name: string, path = process.env.PATH ?? ''): string | undefined {
  return path
    .split(delimiter)
    .filter(Boolean)
    .map((dir) => join(dir, name))
    .find(isExecutable);
}

function probeBubblewrap(bwrap: string): string | null {
  const result = process
    .getBuiltinModule('node:child_process')
    .spawnSync(
      bwrap,
      [
        '--ro-bind',
        '/',
        '/',
        '--dev',
        '/dev',
        '--proc',
        '/proc',
        '--unshare-pid',
        '--unshare-net',
        '--new-session',
        '--die-with-parent',
        '--cap-drop',
        'ALL',
        '--',
        'true',
      ],
      {
        stdio: ['ignore', 'ignore', 'pipe'],
        timeout: 10_000,
        encoding: 'utf8',
      },
    );
  if (result.status === 0) return null;
  const detail = (result.stderr || result.error?.message || `exit ${result.status}`).trim().split('\n')[0];
  return `bubblewrap is installed but cannot create a sandbox here (${detail}). User namespaces may be turned off: allow them (sysctl kernel.unprivileged_userns_clone=1; on Ubuntu 24.04+ kernel.apparmor_restrict_unprivileged_userns=0).`;
}

let cached: SandboxSupport | undefined;

/** Detect the OS sandbox once per process (a probe run of bubblewrap on Linux). */
export function sandboxSupport(platform: NodeJS.Platform = process.platform): SandboxSupport {
  if (cached && platform === process.platform) return cached;
  const support = detect(platform);
  if (platform === process.platform) cached = support;
  return support;
}

/**
 * What is there without bubblewrap's probe run (the program found, or why not): what a run with the sandbox turned off
 * says, so that it starts no process for a sandbox it will not use. The probe's own verdict once it ran.
 */
export function sandboxPresence(platform: NodeJS.Platform = process.platform): SandboxSupport {
  if (cached && platform === process.platform) return cached;
  return detect(platform, false);
}

function detect(platform: NodeJS.Platform, probe = true): SandboxSupport {
  if (platform === 'darwin') {
    const program = ['/usr/bin/sandbox-exec'].find(isExecutable);
    return program
      ? { kind: 'seatbelt', program }
      : {
          kind: null,
          reason: 'sandbox-exec (Seatbelt) was not found in /usr/bin.',
          install: 'sandbox-exec ships with macOS; check that /usr/bin/sandbox-exec exists.',
        };
  }
  if (platform !== 'linux') return { kind: null, reason: `There is no OS sandbox for ${platform} in Deft yet.` };
  const bwrap = findProgram('bwrap');
  if (!bwrap) return { kind: null, reason: 'bubblewrap (bwrap) is not installed.', install: LINUX_INSTALL };
  const failure = probe ? probeBubblewrap(bwrap) : null;
  if (failure) return { kind: null, reason: failure, install: LINUX_INSTALL };
  const socat = findProgram('socat');
  const nsenter = findProgram('nsenter');
  return { kind: 'bubblewrap', program: bwrap, ...(socat ? { socat } : {}), ...(nsenter ? { nsenter } : {}) };
}
