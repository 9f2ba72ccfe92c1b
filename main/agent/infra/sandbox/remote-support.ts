import { posix } from 'node:path';
import type { Environment } from '#contract/environment';
import { DEFT_HOME_SECRETS, SECRET_PLACES } from '../policies/secret-places';
import { SYSTEM_COVERS } from './hidden-places';
import type { FactOp } from './remote-facts';
import { runThere } from './remote-facts';
import type { SandboxSettings } from './settings';
import { GUARDED_ENTRIES } from './workspace-inputs';

/** What the other machine offers: bubblewrap that works there, or why not. */
export interface RemoteSupport {
  program?: string;
  /** socat there: what carries a command's proxy port to Deft's proxy (remote-network.ts); without it, no network. */
  socat?: string;
  reason?: string;
  install?: string;
}

/** The probe run there: bubblewrap on PATH, and a sandbox it can make (the same probe as this machine's, availability.ts). */
const PROBE = `b=$(command -v bwrap 2>/dev/null) || { echo missing; exit 0; }
s=$(command -v socat 2>/dev/null) || s=
if out=$("$b" --ro-bind / / --dev /dev --proc /proc --unshare-pid --unshare-net --new-session --die-with-parent --cap-drop ALL -- true 2>&1); then printf 'ok %s\\t%s\\n' "$b" "$s"; else printf 'fail %s\\n' "$(printf '%s' "$out" | head -n 1)"; fi`;

function installHint(label: string): string {
  return `Install bubblewrap on ${label} (Debian/Ubuntu: sudo apt-get install bubblewrap; Fedora: sudo dnf install bubblewrap; Arch: sudo pacman -S bubblewrap), then open the folder again.`;
}

/** Probe the other machine once (a round trip): throws when the command cannot run there (the link is down). */
export async function probeRemote(environment: Environment): Promise<RemoteSupport> {
  const out = (await runThere(environment, PROBE)).trim().split('\n').at(-1) ?? '';
  const label = environment.label;
  if (out.startsWith('ok /')) {
    const [program = '', socat = ''] = out.slice(3).split('\t');
    return { program, ...(socat.startsWith('/') ? { socat } : {}) };
  }
  if (out.startsWith('fail'))
    return {
      reason: `bubblewrap is installed on ${label} but cannot create a sandbox there (${out.slice(5) || 'no reason given'}). User namespaces may be turned off there: allow them (sysctl kernel.unprivileged_userns_clone=1; on Ubuntu 24.04+ kernel.apparmor_restrict_unprivileged_userns=0).`,
      install: installHint(label),
    };
  return { reason: `bubblewrap (bwrap) is not installed on ${label}, where the commands run.`, install: installHint(label) };
}

export interface FactPathsInput {
  workspace: string;
  home: string;
  deftHome: string;
  tmpDir: string;
  cwd: string;
  settings: Pick<SandboxSettings, 'allowWrite' | 'denyWrite' | 'denyRead'>;
}

/**
 * What the planner will ask about, gathered in the first round trip: the workspace's guarded entries and git folders,
 * the secret places in the home there, Deft's folder there, the temp folder, the settings' paths and the system covers.
 * A question not foreseen here (a linked worktree's git dir, a secret place that is a link) costs one more round trip.
 */
export function remoteFactPaths(input: FactPathsInput): Map<string, Set<FactOp>> {
  const paths = new Map<string, Set<FactOp>>();
  const add = (path: string, ops: string) => {
    const key = posix.resolve(path);
    const set = paths.get(key) ?? new Set<FactOp>();
    for (const op of ops) set.add(op as FactOp);
    paths.set(key, set);
  };
  const ws = input.workspace;
  add(ws, 'lsr');
  add(input.cwd, 'lsr');
  for (const name of GUARDED_ENTRIES) add(posix.join(ws, name), 'lsrc');
  const git = posix.join(ws, '.git');
  for (const name of ['HEAD', 'commondir', 'gitdir', 'config']) add(posix.join(git, name), 'lsrc');
  for (const name of ['hooks', 'config.worktree', 'objects', 'refs']) add(posix.join(git, name), 'lsr');
  for (const name of ['worktrees', 'modules']) add(posix.join(git, name), 'lsrd');
  add(input.home, 'lsr');
  for (const place of SECRET_PLACES) add(posix.join(input.home, place.path), 'lsr');
  add(input.deftHome, 'lsrd');
  for (const dir of DEFT_HOME_SECRETS.dirs) add(posix.join(input.deftHome, dir), 'lsr');
  add(posix.join(input.deftHome, DEFT_HOME_SECRETS.perWorkspace), 'lsrd');
  add(input.tmpDir, 'lsr');
  for (const path of [...input.settings.allowWrite, ...input.settings.denyWrite, ...input.settings.denyRead]) if (posix.isAbsolute(path)) add(path, 'lsr');
  for (const dir of SYSTEM_COVERS) add(dir, 'l');
  return paths;
}

/**
 * When the workspace's `.git` is a file (a linked worktree: `gitdir: <common>/worktrees/<id>`), what the plan will ask
 * of its git dir and of the repository's common dir — gathered in one more round trip, not found out one question per
 * round. Empty when `.git` is not such a file (or was not read).
 */
export function linkedGitFactPaths(workspace: string, dotGit: string | null): Map<string, Set<FactOp>> {
  const paths = new Map<string, Set<FactOp>>();
  const named = /^gitdir: (\/[^\n]+)\n?$/.exec(dotGit ?? '')?.[1];
  if (!named) return paths;
  const add = (path: string, ops: string) => {
    const key = posix.resolve(path);
    const set = paths.get(key) ?? new Set<FactOp>();
    for (const op of ops) set.add(op as FactOp);
    paths.set(key, set);
  };
  const gitDir = posix.resolve(workspace, named);
  add(gitDir, 'lsr');
  for (const name of ['HEAD', 'commondir', 'gitdir', 'config']) add(posix.join(gitDir, name), 'lsrc');
  for (const name of ['hooks', 'config.worktree', 'objects', 'refs']) add(posix.join(gitDir, name), 'lsr');
  // Its common dir, as git makes it (`<common>/worktrees/<id>`): a commondir file naming another is asked after.
  const common = posix.dirname(posix.dirname(gitDir));
  add(common, 'lsr');
  for (const name of ['HEAD', 'commondir', 'gitdir', 'config']) add(posix.join(common, name), 'lsrc');
  for (const name of ['hooks', 'config.worktree', 'objects', 'refs']) add(posix.join(common, name), 'lsr');
  for (const name of ['worktrees', 'modules']) add(posix.join(common, name), 'lsrd');
  return paths;
}
