import { z } from 'zod';
import { exactRule, matchGlobSubject } from '#infra/policies/rule-match';
import type { SkillCatalog } from '../../catalog';
import type { Placement } from '../../nesting';
import { type SkillDefinition, type SkillTrigger, MAX_SKILL_NESTING, isModelInvocable, slashCommandFor } from '../../types';
import { ToolInputError, access, defineTool } from '#contract/tool';
import description from './skill.md?raw';
import { toolInput } from '#contract/tool-input';

export const SkillInput = toolInput('Skill', () =>
  z
    .object({
      skill: z.string().min(1).max(200).describe('The skill name, as listed under "# Skills".'),
      args: z.string().max(20_000).optional().describe('Arguments for the skill, like a command line.'),
    })
    .strict(),
);

export interface SkillToolDeps {
  catalog(): SkillCatalog;
  /** Where loading this skill at this step of the turn would put it (TurnSkills.place). */
  place(turnId: string, step: number, name: string): Placement;
  /** Read the skill's instructions, put them into the conversation (delivered at the next step) and record it; rejects when the file cannot be read. */
  load(
    skill: SkillDefinition,
    args: string,
    context: { turnId: string; callId: string; step: number; trigger: SkillTrigger; chain: string[]; parent?: string },
  ): Promise<void>;
}

function notFound(catalog: SkillCatalog, name: string): string {
  const close = catalog.closeNames(name, isModelInvocable);
  if (close.length) return `There is no skill named "${name}". Did you mean: ${close.join(', ')}? Call Skill again with one of these names.`;
  const available = catalog.skills.filter((s) => isModelInvocable(s) && !s.isSubSkill).map((s) => s.name);
  if (!available.length) return `There is no skill named "${name}", and no skills are available to you right now. Do the task without a skill.`;
  const shown = available.slice(0, 30).join(', ');
  return `There is no skill named "${name}". Available skills: ${shown}${available.length > 30 ? `, … (${available.length - 30} more in the skill listing)` : ''}.`;
}

/** The Skill tool: the model loads a prompt/inline skill; its expanded instructions arrive as the next message. */
export const SKILL_TOOL = 'Skill';

export function skillTool(deps: SkillToolDeps) {
  return defineTool({
    name: SKILL_TOOL,
    policy: { approval: 'rules', mainAgentOnly: false },
    description,
    input: SkillInput,
    resolveExecution: (args) => {
      const catalog = deps.catalog();
      const skill = catalog.get(args.skill);
      if (!skill) throw new ToolInputError(notFound(catalog, args.skill));
      const command = `/${slashCommandFor(skill)}`;
      if (skill.type === 'flow') {
        throw new ToolInputError(
          `Skill "${skill.name}" is a flow skill, not an inline one: only the user can start it. Suggest that they run ${command} if it fits.`,
        );
      }
      if (skill.type === 'reference') {
        throw new ToolInputError(
          `Skill "${skill.name}" is a reference skill, not an inline one: it is material to read, not instructions to load. Read ${skill.file} if you need it.`,
        );
      }
      if (skill.disableModelInvocation) {
        throw new ToolInputError(
          `Skill "${skill.name}" can only be triggered by the user (it sets disable-model-invocation). Suggest that they run ${command} if it fits.`,
        );
      }
      const skillArgs = args.args?.trim() ?? '';
      return {
        accesses: access.none(),
        description: skillArgs ? `Load skill ${skill.name} with ${skillArgs}` : `Load skill ${skill.name}`,
        display: { kind: 'skill_call', skillName: skill.name, ...(skillArgs ? { args: skillArgs } : {}) },
        approvalRule: exactRule('Skill', skill.name),
        matchesRule: (rule) => matchGlobSubject(rule, skill.name),
        readOnly: true,
        execute: async (ctx) => {
          const placed = deps.place(ctx.turnId, ctx.step, skill.name);
          if (placed.kind === 'loaded') {
            return {
              output: `Skill "${skill.name}" is already loaded in this turn: its instructions are in the <skill-loaded name="${skill.name}"> message above. Follow them${skillArgs ? ` for "${skillArgs}" too` : ''}; do not load it again.`,
            };
          }
          if (placed.kind === 'too_deep') {
            return {
              output: `Skill "${skill.name}" was not loaded: skills load skills at most ${MAX_SKILL_NESTING} deep, and this would be ${placed.chain.map((n) => `"${n}"`).join(' → ')}. Carry on with the instructions already loaded, or finish this turn and let the user start the next skill.`,
              isError: true,
            };
          }
          const trigger: SkillTrigger = placed.parent ? 'nested' : 'model';
          try {
            await deps.load(skill, skillArgs, {
              turnId: ctx.turnId,
              callId: ctx.callId,
              step: ctx.step,
              trigger,
              chain: placed.chain,
              ...(placed.parent ? { parent: placed.parent } : {}),
            });
          } catch (error) {
            return { output: `Skill "${skill.name}" was not loaded: ${(error as Error).message}`, isError: true };
          }
          return { output: `Skill "${skill.name}" loaded. Its instructions follow in the next message, in a <skill-loaded> block; follow them.` };
        },
      };
    },
  });
}
