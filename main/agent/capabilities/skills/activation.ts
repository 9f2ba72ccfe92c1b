import type { SessionHandle } from '../../contract/feature';
import { expandSkillBody, renderSkillLoadedBlock } from './expand';
import type { SkillDefinition, SkillTrigger } from './types';

/** Session state key: the latest block of each skill loaded in the session (what a compaction re-attaches). */
export const LOADED_SKILLS_STATE = 'skills.loaded';
const MAX_REMEMBERED = 20;
const MAX_BLOCK_CHARS = 60_000;
const MAX_EVENT_CONTENT_CHARS = 20_000;

export interface LoadedSkillRecord {
  name: string;
  trigger: SkillTrigger;
  args: string;
  /** The message the model read. */
  block: string;
  at: number;
}

export interface Activation {
  /** The expanded instructions. */
  content: string;
  /** The preface line plus the `<skill-loaded>` block. */
  block: string;
}

export function buildActivation(skill: SkillDefinition, args: string, trigger: SkillTrigger, sessionId: string, parent?: string): Activation {
  const content = expandSkillBody(skill.body, args, { arguments: skill.arguments, skillDir: skill.dir, sessionId });
  const block = renderSkillLoadedBlock({ name: skill.name, trigger, source: skill.source, dir: skill.dir, content, ...(parent ? { parentSkill: parent } : {}) });
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
  const content = activation.content.length > MAX_EVENT_CONTENT_CHARS ? `${activation.content.slice(0, MAX_EVENT_CONTENT_CHARS)}\n[… ${activation.content.length - MAX_EVENT_CONTENT_CHARS} more characters]` : activation.content;
  session.emit({ type: 'skill.activated', name: skill.name, args, trigger, source: skill.source, dir: skill.dir, content, ...ids });
  const previous = (session.getState<LoadedSkillRecord[]>(LOADED_SKILLS_STATE) ?? []).filter((r) => r.name !== skill.name);
  const record: LoadedSkillRecord = { name: skill.name, trigger, args, block: activation.block.slice(0, MAX_BLOCK_CHARS), at };
  session.setState(LOADED_SKILLS_STATE, [...previous, record].slice(-MAX_REMEMBERED));
}

/**
 * The skills loaded in a session, latest activation of each, oldest first — what a compaction
 * re-attaches after the handoff note (an undo of the turn that loaded one forgets it).
 */
export function loadedSkillBlocks(session: Pick<SessionHandle, 'getState'>): LoadedSkillRecord[] {
  return session.getState<LoadedSkillRecord[]>(LOADED_SKILLS_STATE) ?? [];
}
