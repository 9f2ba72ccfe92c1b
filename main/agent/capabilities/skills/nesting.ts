import { MAX_SKILL_NESTING, normalizeSkillName } from './types';

/** A skill loaded in the turn: at which step, how deep, and the instructions the model read. */
interface Load {
  name: string;
  /** The step that loaded it (0: the user ran it to start the turn); the model reads it from the next step on. */
  step: number;
  /** The chain from the skill that started it down to this one (this one last). */
  chain: string[];
  instructions: string;
}

/** Where a skill the model asks for would sit in the turn. */
export type Placement =
  | { kind: 'loaded' }
  /** `chain` ends with the new skill; `parent` is the skill whose instructions asked for it. */
  | { kind: 'load'; chain: string[]; parent?: string }
  | { kind: 'too_deep'; chain: string[] };

/**
 * The skills loaded in a session's current turn, as chains: a skill is nested in another when that one's
 * instructions (read at an earlier step) name it — a skill that loads a skill. Two skills loaded at one
 * step are siblings, and a skill nothing asked for starts a chain of its own, however many the turn has
 * loaded. A chain is at most MAX_SKILL_NESTING long.
 */
export class TurnSkills {
  private turnId = '';
  private loads: Load[] = [];

  /** Where loading `name` at `step` would put it (or that it is in the conversation already). */
  place(turnId: string, step: number, name: string): Placement {
    const loads = this.of(turnId);
    const key = normalizeSkillName(name);
    if (loads.some((l) => normalizeSkillName(l.name) === key)) return { kind: 'loaded' };
    const parent = loads.filter((l) => l.step < step && mentions(l.instructions, name)).at(-1);
    const chain = [...(parent?.chain ?? []), name];
    if (chain.length > MAX_SKILL_NESTING) return { kind: 'too_deep', chain };
    return parent ? { kind: 'load', chain, parent: parent.name } : { kind: 'load', chain };
  }

  /** Note a skill loaded at `step` (after `place` said where). */
  record(turnId: string, step: number, name: string, chain: readonly string[], instructions: string): void {
    this.of(turnId).push({ name, step, chain: [...chain], instructions });
  }

  /** After a compaction: skills no longer in the conversation may be loaded again. */
  keepOnly(names: ReadonlySet<string>): void {
    this.loads = this.loads.filter((l) => names.has(normalizeSkillName(l.name)));
  }

  private of(turnId: string): Load[] {
    if (turnId !== this.turnId) {
      this.turnId = turnId;
      this.loads = [];
    }
    return this.loads;
  }
}

/** Whether instructions name a skill as a word of its own (`commit`, `/commit`, `skill:commit`, "the commit skill"). */
function mentions(instructions: string, name: string): boolean {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(^|[^A-Za-z0-9_.-])${escaped}($|[^A-Za-z0-9_-])`, 'i').test(instructions);
}
