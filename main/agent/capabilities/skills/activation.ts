import { z } from 'zod';
import { type SkillTrigger, skillSchemas } from '#protocol/schemas/skills';
import { builtOnce } from '#protocol/helpers/built-once';
import type { SessionHandle } from '#contract/capability';
import { stateSlot } from '#contract/state';
import { expandSkillBody, renderSkillLoadedBlock } from './expand';
import type { SkillDefinition } from './types';
const MAX_REMEMBERED = 20;
const MAX_BLOCK_CHARS = 60_000;
const MAX_EVENT_CONTENT_CHARS = 20_000;

const loadedSkillRecord = builtOnce(() =>
  z.object({
    name: z.string(),
    trigger: skillSchemas().SkillTrigger,
    args: z.string(),
    /** The message the model read. */
    block: z.string(),
    at: z.number(),
  }),
);
export type LoadedSkillRecord = z.infer<ReturnType<typeof loadedSkillRecord>>;

/** The latest block of each skill loaded in the session (what a compaction re-attaches). */
export const loadedSkillsSlot = stateSlot('skills.loaded', () => z.array(loadedSkillRecord()), [] as LoadedSkillRecord[]);

export interface Activation {
  /** The expanded instructions. */
  content: string;
  /** The preface line plus the `<skill-loaded>` block. */
  block: string;
}

/** The skill's body (`body`, read by readSkillBody) with its arguments filled in (a Claude Code command's `$1` counts from one). */
export function expandedBody(skill: SkillDefinition, body: string, args: string, sessionId: string): string {
  return expandSkillBody(body, args, {
    arguments: skill.arguments,
    skillDir: skill.dir,
    sessionId,
    ...(skill.fromCommands ? { positionalFromOne: true } : {}),
  });
}

/** `content`: the body already prepared (a command's shell lines and files); by default `body` expanded. */
export function buildActivation(
  skill: SkillDefinition,
  body: string,
  args: string,
  trigger: SkillTrigger,
  sessionId: string,
  parent?: string,
  prepared?: string,
): Activation {
  const content = prepared ?? expandedBody(skill, body, args, sessionId);
  const block = renderSkillLoadedBlock({
    name: skill.name,
    trigger,
    source: skill.source,
    dir: skill.dir,
    content,
    ...(parent ? { parentSkill: parent } : {}),
  });
  return { content, block };
}

/** Tell the UI and remember the block in the session, so it can be re-attached after a compaction. */
export function recordActivation(
  session: SessionHandle,
  skill: SkillDefinition,
  args: string,
  trigger: SkillTrigger,
  activation: Activation,
  at: number,
  ids: { turnId?: string; callId?: string } = {},
): void {
  const content =
    activation.content.length > MAX_EVENT_CONTENT_CHARS
      ? `${activation.content.slice(0, MAX_EVENT_CONTENT_CHARS)}\n[… ${activation.content.length - MAX_EVENT_CONTENT_CHARS} more characters]`
      : activation.content;
  session.emit({ type: 'skill.activated', name: skill.name, args, trigger, source: skill.source, dir: skill.dir, content, ...ids });
  const previous = loadedSkillBlocks(session).filter((r) => r.name !== skill.name);
  const record: LoadedSkillRecord = { name: skill.name, trigger, args, block: activation.block.slice(0, MAX_BLOCK_CHARS), at };
  session.state(loadedSkillsSlot).set([...previous, record].slice(-MAX_REMEMBERED));
}

/**
 * The skills loaded in a session, latest activation of each, oldest first — what a compaction
 * re-attaches after the handoff note (an undo of the turn that loaded one forgets it).
 */
export function loadedSkillBlocks(session: Pick<SessionHandle, 'state'>): LoadedSkillRecord[] {
  return session.state(loadedSkillsSlot).get();
}
