import { homedir } from 'node:os';
import { TrustStore } from '../settings/trust';
import { InstructionReader } from './load';
import { instructionRoots, projectCandidates, userCandidates } from './locations';
import { readInstructionSettings } from './settings';
import type { InstructionLimits, InstructionSet } from './types';
import type { Environment, WorkspacePlace } from '#contract/environment';
import { workspacePlace } from '../environment/workspace-place';
import { projectRootThere } from '../git/repository-there';

export interface SessionInstructionOptions {
  workspace: string;
  /** The workspace's place, for its trust (default: the local folder `workspace`). */
  place?: Pick<WorkspacePlace, 'id'>;
  /** Deft's home (`~/.deft`): its AGENTS.md, its settings and trust. */
  deftHome: string;
  userHome?: string;
  limits?: Partial<InstructionLimits>;
  /**
   * The machine the workspace is on (default: this one). On another machine the project's files are read there, from
   * the top of the repository the folder is in (found there by its git; the folder was resolved to its real path when
   * opened) down to the folder, and the user's own files here.
   */
  environment?: Environment;
}

/** The instruction files a new system prompt holds (user, then project from the repository's top down), with the real paths read. */
export async function loadInstructions(options: SessionInstructionOptions): Promise<InstructionSet & { read: ReadonlySet<string> }> {
  const userHome = options.userHome ?? homedir();
  const there = options.environment && options.environment.kind !== 'local' ? options.environment : null;
  const roots = there
    ? { workspace: options.workspace, projectRoot: await projectRootThere(there, options.workspace) }
    : instructionRoots(options.workspace, userHome);
  // Trust only lets a local folder's files import from the home folder; a remote folder's never do (load.ts).
  const [choices, trusted] = await Promise.all([
    readInstructionSettings(options.deftHome),
    there ? false : new TrustStore(options.deftHome, options.place ?? workspacePlace(options.workspace)).get().then((trust) => trust.trusted),
  ]);
  const reader = new InstructionReader({
    ...roots,
    deftHome: options.deftHome,
    userHome,
    trusted,
    ...(there ? { environment: there } : {}),
    ...(options.limits ? { limits: options.limits } : {}),
  });
  const set = await reader.read([...userCandidates(options.deftHome, choices, userHome), ...projectCandidates(roots)]);
  return { ...set, read: reader.readPaths };
}
