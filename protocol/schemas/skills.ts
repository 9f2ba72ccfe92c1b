import { z } from 'zod';

/** Where a skill was found; on a name clash the earlier source in this list wins. */
export const SkillSource = z.enum(['explicit', 'workspace', 'user', 'extra', 'plugin', 'builtin']);
export type SkillSource = z.infer<typeof SkillSource>;

/** How a skill may be used: prompt/inline by the user and the model, flow by the user only, reference by neither. */
export const SkillType = z.enum(['prompt', 'inline', 'flow', 'reference']);
export type SkillType = z.infer<typeof SkillType>;

/** Who loaded a skill into the conversation. */
export const SkillTrigger = z.enum(['user', 'model', 'nested']);
export type SkillTrigger = z.infer<typeof SkillTrigger>;

/** A declared argument (named fields in the run dialog, `$name` in the body). */
export const SkillArgument = z.object({ name: z.string(), description: z.string().optional() });
export type SkillArgument = z.infer<typeof SkillArgument>;

/** A skill as the gallery and the slash menu see it. */
export const SkillSummary = z.object({
  /** Lower-cased, unique; sub-skills are `parent.child`. */
  name: z.string(),
  description: z.string(),
  type: SkillType,
  source: SkillSource,
  /** The SKILL.md (or flat `<name>.md`) file. */
  file: z.string(),
  /** The skill's folder (for a flat file: its root). */
  dir: z.string(),
  whenToUse: z.string().optional(),
  argumentHint: z.string().optional(),
  arguments: z.array(SkillArgument),
  /** The slash command that runs it (`skill:<name>`, or `<name>` for built-ins and sub-skills); absent when users cannot run it. */
  command: z.string().optional(),
  modelInvocable: z.boolean(),
  isSubSkill: z.boolean(),
  license: z.string().optional(),
  compatibility: z.string().optional(),
  allowedTools: z.array(z.string()).optional(),
  /** Skills of the same name this one hides (lower-priority sources). */
  overrides: z.array(z.object({ source: SkillSource, file: z.string() })),
});
export type SkillSummary = z.infer<typeof SkillSummary>;

/** A file that looked like a skill but could not be used, and why. */
export const SkippedSkill = z.object({ file: z.string(), reason: z.string(), source: SkillSource });
export type SkippedSkill = z.infer<typeof SkippedSkill>;

/** A folder scanned for skills. */
export const SkillRoot = z.object({ path: z.string(), source: SkillSource, exists: z.boolean(), watched: z.boolean() });
export type SkillRoot = z.infer<typeof SkillRoot>;

/** The whole catalog: what the gallery shows. `version` increases on every change. */
export const SkillCatalog = z.object({
  version: z.number().int(),
  skills: z.array(SkillSummary),
  skipped: z.array(SkippedSkill),
  roots: z.array(SkillRoot),
});
export type SkillCatalog = z.infer<typeof SkillCatalog>;

/** A skill name as typed by a user or a UI (validated loosely; the core resolves it case-insensitively). */
export const SkillNameInput = z.string().trim().min(1).max(200);
