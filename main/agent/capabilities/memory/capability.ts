import { homedir } from 'node:os';
import type { MemoryOverview } from '#protocol';
import { CommandError } from '#contract/errors';
import type { CoreContext, Capability, CapabilityFactory, SessionHandle } from '#contract/capability';
import { appendMemoryLine, memoryFileIn } from '#infra/instructions/append';
import { displayPath } from '#infra/instructions/display';
import { loadInstructions } from '#infra/instructions/index';
import { foldersWithInstructions, instructionRoots, nestedFolders } from '#infra/instructions/locations';
import { readInstructionSettings, writeInstructionSettings } from '#infra/instructions/settings';
import { TrustStore } from '#infra/settings/trust';
import { nestedFacts, nestedFoldersSlot, readNested } from './nested';

export interface MemoryCapabilityOptions {
  /** The user's home, for `~/.claude/CLAUDE.md`, `~/.codex/AGENTS.md` and `~` in imports (default: the OS's). */
  userHome?: string;
}

/**
 * Instruction files beyond the system prompt's (which the runtime reads through infra/instructions): a subfolder's
 * AGENTS.md/CLAUDE.md announced as a fact when the agent first reads or edits a file under it, the Memory view's
 * list, the user's choices about other agents' user files, and `#` lines added to a file.
 *
 * On a remote workspace the subfolders' files are read there, through the environment (never imports from outside
 * the workspace), the system prompt holds the user's own files (here) and the folder's own AGENTS.md and CLAUDE.md
 * (there; not the repository's above it), and a `#` line can go to the user's file only.
 */
export function createMemoryCapability(options: MemoryCapabilityOptions = {}): CapabilityFactory {
  return (core: CoreContext): Capability => {
    const userHome = options.userHome ?? homedir();
    const { environment } = core;
    const remote = environment.kind !== 'local';
    // A remote folder was resolved to its real path there when opened; its repository's top is not looked for.
    const roots = remote ? { workspace: core.workspace, projectRoot: core.workspace } : instructionRoots(core.workspace, userHome);
    const context = async () => ({
      ...roots,
      deftHome: core.home,
      userHome,
      trusted: (await new TrustStore(core.home, core.place).get()).trusted,
      ...(remote ? { environment } : {}),
    });
    const rootSet = () => loadInstructions({ workspace: core.workspace, place: core.place, deftHome: core.home, userHome, environment });
    /** Per session: the real paths the system prompt's files were read from (read once: the prompt is kept too). */
    const rootRead = new Map<string, Promise<ReadonlySet<string>>>();
    const readOfRoot = (sessionId: string) => {
      let read = rootRead.get(sessionId);
      if (!read) rootRead.set(sessionId, (read = rootSet().then((set) => set.read)));
      return read;
    };
    /** Per session: the last step's look for subfolders' instruction files, while it runs. */
    const discovering = new Map<string, Promise<void>>();
    const nestedOf = async (session: SessionHandle) => {
      const folders = session.state(nestedFoldersSlot).get();
      return folders.length ? readNested(await context(), folders, await readOfRoot(session.id)) : [];
    };

    const overview = async (sessionId?: string): Promise<MemoryOverview> => {
      const [set, settings, project, user] = await Promise.all([
        rootSet(),
        readInstructionSettings(core.home),
        memoryFileIn(roots.workspace, environment),
        memoryFileIn(core.home),
      ]);
      const nested = sessionId ? await nestedOf(await core.session(sessionId)) : [];
      const files = [...set.files, ...nested.flatMap((n) => n.files)];
      return {
        files: files.map((f) => ({
          display: f.display,
          scope: f.scope,
          ...(f.importedBy ? { importedBy: f.importedBy } : {}),
          text: f.text,
          bytes: f.bytes,
          truncated: f.truncated,
        })),
        problems: [...set.problems, ...nested.flatMap((n) => n.problems)],
        settings,
        targets: [
          { target: 'project', display: displayPath(project.path, roots.workspace, userHome), exists: project.exists },
          { target: 'user', display: displayPath(user.path, roots.workspace, userHome), exists: user.exists },
        ],
      };
    };

    return {
      name: 'memory',
      facts: async (session) => {
        // The next request waits for the last step's look for subfolders' files (on a slow or remote disk it can take
        // longer than building that request): a file of a folder just touched is in it, never one request late.
        await discovering.get(session.id);
        return nestedFacts(await nestedOf(session));
      },
      onStepEnd: async (session, step) => {
        const touched = step.calls.filter((c) => !c.isError).flatMap((c) => c.files ?? []);
        if (!touched.length) return;
        const look = (async () => {
          const known = session.state(nestedFoldersSlot).get();
          const candidates = [...new Set(touched.flatMap((path) => nestedFolders(roots.workspace, path)))].filter((dir) => !known.includes(dir));
          const found = await foldersWithInstructions(candidates, environment);
          if (found.length) session.state(nestedFoldersSlot).set([...known, ...found]);
        })();
        const settled = look.catch(() => {});
        discovering.set(session.id, settled);
        await look.finally(() => {
          if (discovering.get(session.id) === settled) discovering.delete(session.id);
        });
      },
      onUndo: (session, before) => {
        const folders = before(nestedFoldersSlot);
        if (folders.length !== session.state(nestedFoldersSlot).get().length) session.state(nestedFoldersSlot).set(folders);
      },
      onSessionUnloaded: (session) => void rootRead.delete(session.id),
      onSessionDeleted: (sessionId) => void rootRead.delete(sessionId),
      commands: {
        listMemory: ({ sessionId }) => overview(sessionId),
        setInstructionSettings: async (patch) => {
          await writeInstructionSettings(core.home, patch);
          return overview();
        },
        addMemoryLine: async ({ target, text }) => {
          if (target === 'project' && remote)
            throw new CommandError(
              'unsupported',
              `Adding a line to the AGENTS.md of a folder on ${environment.label} is not done yet: ask the agent to edit it.`,
            );
          try {
            const path = await appendMemoryLine(target === 'project' ? roots.workspace : core.home, text, { deftHome: core.home });
            return { display: displayPath(path, roots.workspace, userHome) };
          } catch (error) {
            throw new CommandError('invalid_request', `The line was not added: ${(error as Error).message}`);
          }
        },
      },
    };
  };
}

export const memoryCapability = createMemoryCapability();
