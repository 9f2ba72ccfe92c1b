import { CommandError } from '#contract/errors';
import type { CoreContext, Capability, CapabilityFactory, SessionHandle } from '#contract/capability';
import { reminder } from '#contract/facts';
import { SKILL_TOOL, skillTool } from './tools/skill/skill';
import { buildActivation, expandedBody, loadedSkillBlocks, loadedSkillsSlot, recordActivation } from './activation';
import { commandFileReferences, commandShellLines } from './command-body';
import { TrustStore } from '#infra/settings/trust';
import { SkillService, type SkillServiceOptions } from './service';
import { readSkillBody } from './body';
import { TurnSkills } from './nesting';
import { localSkillFs, environmentSkillFs } from './skill-fs';
import { type SkillDefinition, isUserInvocable, normalizeSkillName, slashCommandFor } from './types';

export type SkillsCapabilityOptions = Omit<SkillServiceOptions, 'workspace' | 'home'>;

const MAX_VIEW_BYTES = 1024 * 1024;
const REMOTE_REFRESH_MS = 3000;

/**
 * Skills: discovery and live reload (SkillService), the Skill tool, the model's listing (a fact,
 * said when it changes), the skill folders readable by the file tools, and the commands the gallery and the
 * slash menu use.
 */
export function createSkillsCapability(options: SkillsCapabilityOptions = {}): CapabilityFactory {
  return (core: CoreContext): Capability => {
    const remote = core.environment.kind !== 'local';
    const service = new SkillService({ ...options, workspace: core.workspace, home: core.home, environment: core.environment });
    /** Where a skill's files are: a remote workspace's on its machine, the user's on this one. */
    const fsOf = (skill: SkillDefinition) => (skill.remote ? environmentSkillFs(core.environment) : localSkillFs);
    service.onChange((catalog) => core.emitApp({ type: 'skills.changed', version: catalog.version, count: catalog.size, skipped: catalog.skipped.length }));
    /** Per session: the skills the current turn has loaded, as chains (a skill a skill loaded nests in it). */
    const turns = new Map<string, TurnSkills>();
    const turnSkills = (sessionId: string): TurnSkills => {
      let skills = turns.get(sessionId);
      if (!skills) turns.set(sessionId, (skills = new TurnSkills()));
      return skills;
    };

    const find = async (name: string): Promise<SkillDefinition> => {
      await service.ready();
      const catalog = service.catalog;
      const skill = catalog.get(name);
      if (skill) return skill;
      const close = catalog.closeNames(name);
      throw new CommandError(
        'not_found',
        `There is no skill named "${name}".${close.length ? ` Did you mean: ${close.join(', ')}?` : ' Open the skill gallery to see the available skills.'}`,
      );
    };

    let lastRefresh = core.now(); // the service's first scan starts now
    /** Whether the workspace is trusted, as last read (a workspace command's shell lines run only then). */
    let trusted = false;
    const readTrust = async () => (trusted = (await new TrustStore(core.home, core.place).get()).trusted);
    /** A Claude Code command's body: arguments, its shell lines (for the model to run through Bash, or refused), and the files it names. */
    const commandBody = async (skill: SkillDefinition, body: string, args: string, sessionId: string): Promise<string | undefined> => {
      if (!skill.fromCommands) return undefined;
      const withShell = commandShellLines(expandedBody(skill, body, args, sessionId), skill, await readTrust());
      // `@path` names a workspace file: read where the workspace is (a remote folder's on its machine).
      return commandFileReferences(withShell, core.workspace, [core.workspace], core.home, core.environment);
    };

    /** Per session, the newest Skill call's load: the next one injects its block after it. */
    const injecting = new Map<string, Promise<void>>();

    const runAsUser = async (session: SessionHandle, skill: SkillDefinition, args: string): Promise<string> => {
      if (!isUserInvocable(skill)) {
        const why =
          skill.type === 'reference' ? 'it is a reference skill (material the model reads, not instructions to run)' : 'it sets user-invocable: false';
        throw new CommandError('invalid_request', `Skill "${skill.name}" cannot be run: ${why}.`);
      }
      let body: string;
      try {
        body = await readSkillBody(skill, fsOf(skill));
      } catch (error) {
        throw new CommandError('not_found', `${(error as Error).message} The gallery updates in a moment.`);
      }
      const activation = buildActivation(skill, body, args, 'user', session.id, undefined, await commandBody(skill, body, args, session.id));
      const text = `/${slashCommandFor(skill)}${args ? ` ${args}` : ''}`;
      const turnId = await session.startTurn({ text, modelText: activation.block, origin: 'skill' });
      if (!turnId) {
        if (session.running) throw new CommandError('busy', 'A turn is already running in this session. Wait for it or stop it, then run the skill again.');
        throw new CommandError('not_configured', 'No model is configured. Open Settings and choose a provider, base URL and model.');
      }
      turnSkills(session.id).record(turnId, 0, skill.name, [skill.name], activation.content);
      recordActivation(session, skill, args, 'user', activation, core.now(), { turnId });
      return turnId;
    };

    return {
      name: 'skills',
      tools: (session) => [
        skillTool({
          catalog: () => service.catalog,
          place: (turnId, step, name) => turnSkills(session.id).place(turnId, step, name),
          load: async (skill, args, { turnId, callId, step, trigger, chain, parent }) => {
            const reading = readSkillBody(skill, fsOf(skill));
            reading.catch(() => {}); // handled below, once the earlier loads are in (not an unhandled rejection meanwhile)
            // Skills loaded by calls of one step are injected in the order the calls started, whichever file is read
            // first: the conversation reads as the model asked.
            const earlier = injecting.get(session.id);
            const mine = (async () => {
              await earlier?.catch(() => {});
              const body = await reading;
              const prepared = skill.fromCommands ? commandShellLines(expandedBody(skill, body, args, session.id), skill, trusted) : undefined;
              const activation = buildActivation(skill, body, args, trigger, session.id, parent, prepared);
              turnSkills(session.id).record(turnId, step, skill.name, chain, activation.content);
              session.inject(activation.block);
              recordActivation(session, skill, args, trigger, activation, core.now(), { turnId, callId });
            })();
            injecting.set(session.id, mine);
            try {
              await mine;
            } finally {
              if (injecting.get(session.id) === mine) injecting.delete(session.id);
            }
          },
        }),
      ],
      // The listing is a fact: said at the first step, and again only when a skill is added, edited or removed.
      facts: async () => {
        await Promise.all([service.ready(), readTrust()]);
        // A remote workspace's skill folders are not watched there: read again when a turn starts (its facts are
        // asked first), and at most every few seconds between its steps.
        if (remote && core.now() - lastRefresh >= REMOTE_REFRESH_MS) {
          lastRefresh = core.now();
          await service.refreshRemote();
        }
        const listing = service.listing();
        return [
          {
            key: 'skills.listing',
            forTool: SKILL_TOOL,
            text: listing ? reminder(listing) : null,
            gone: reminder('# Skills\nNo skills are available to load any more.'),
          },
        ];
      },
      readableRoots: () => service.catalog.readableRoots(remote),
      // A loaded skill outlives a compaction (its block is re-attached) but not the undo of the turn that loaded it.
      onCompaction: (session) => {
        const kept = loadedSkillBlocks(session);
        // A skill the compaction leaves out of the conversation may be loaded again in this turn.
        turns.get(session.id)?.keepOnly(new Set(kept.map((r) => normalizeSkillName(r.name))));
        return kept.map((r) => r.block);
      },
      onUndo: (session, before) => {
        const loaded = before(loadedSkillsSlot);
        const current = loadedSkillBlocks(session);
        if (loaded.length !== current.length || loaded.some((r, i) => r !== current[i])) session.state(loadedSkillsSlot).set(loaded);
      },
      commands: {
        listSkills: async ({ rescan }) => {
          await service.ready();
          if (rescan) await service.rescan();
          else if (remote) await service.refreshRemote();
          return service.payload();
        },
        runSkill: async ({ sessionId, name, args }) => {
          const skill = await find(name);
          const session = await core.session(sessionId);
          return { turnId: await runAsUser(session, skill, args?.trim() ?? '') };
        },
        readSkillFile: async ({ name }) => {
          const skill = await find(name);
          try {
            const text = await fsOf(skill).readText(skill.file);
            return { path: skill.file, text: text.length > MAX_VIEW_BYTES ? `${text.slice(0, MAX_VIEW_BYTES)}\n[… truncated]` : text };
          } catch (error) {
            throw new CommandError(
              'not_found',
              `Cannot read ${skill.file} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}). It may have just been removed; the gallery updates in a moment.`,
            );
          }
        },
        openSkillFolder: async ({ name }) => {
          const skill = await find(name);
          // A remote skill's folder is on the other machine: this machine's file manager would open another folder.
          const opened = core.openPath && !skill.remote ? await core.openPath(skill.dir).catch(() => false) : false;
          return { path: skill.dir, opened };
        },
      },
      // What a turn loaded matters only while it runs (the loaded skills themselves are kept in the session's state).
      onSessionUnloaded: (session) => void turns.delete(session.id),
      onSessionDeleted: (sessionId) => void turns.delete(sessionId),
      close: () => service.close(),
    };
  };
}

/** The skills capability with default options (what every core gets). */
export const skillsCapability: CapabilityFactory = createSkillsCapability();

/** `capabilities` with the skills capability replaced by one using `options` (e.g. `--skills-dir`). */
export function withSkillsOptions(capabilities: readonly CapabilityFactory[], options: SkillsCapabilityOptions): CapabilityFactory[] {
  const replacement = createSkillsCapability(options);
  return capabilities.includes(skillsCapability) ? capabilities.map((f) => (f === skillsCapability ? replacement : f)) : [...capabilities, replacement];
}
