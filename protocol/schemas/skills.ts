import { z } from 'zod';
import { builtOnce } from '../helpers/built-once';

/** The schemas of this file, built on first use (skillSchemas): a run that validates none of them (the CLI's text turn) never builds them. */
const buildSkillSchemas = () => {
  /** Where a skill was found; on a name clash the earlier source in this list wins. */
  const SkillSource = z.enum(['explicit', 'workspace', 'user', 'extra', 'plugin', 'builtin']);
  /** How a skill may be used: prompt/inline by the user and the model, flow by the user only, reference by neither. */
  const SkillType = z.enum(['prompt', 'inline', 'flow', 'reference']);
  /** Who loaded a skill into the conversation. */
  const SkillTrigger = z.enum(['user', 'model', 'nested']);
  /** A declared argument (named fields in the run dialog, `$name` in the body). */
  const SkillArgument = z.object({ name: z.string(), description: z.string().optional() });
  /** A skill as the gallery and the slash menu see it. */
  const SkillSummary = z.object({
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
  /** A file that looked like a skill but could not be used, and why. */
  const SkippedSkill = z.object({ file: z.string(), reason: z.string(), source: SkillSource });
  /** A folder scanned for skills. */
  const SkillRoot = z.object({ path: z.string(), source: SkillSource, exists: z.boolean(), watched: z.boolean() });
  /** The whole catalog: what the gallery shows. `version` increases on every change. */
  const SkillCatalog = z.object({
    version: z.number().int(),
    skills: z.array(SkillSummary),
    skipped: z.array(SkippedSkill),
    roots: z.array(SkillRoot),
  });
  /** A skill name as typed by a user or a UI (validated loosely; the core resolves it case-insensitively). */
  const SkillNameInput = z.string().trim().min(1).max(200);
  return { SkillSource, SkillType, SkillTrigger, SkillArgument, SkillSummary, SkippedSkill, SkillRoot, SkillCatalog, SkillNameInput };
};
export type SkillSchemas = ReturnType<typeof buildSkillSchemas>;
export const skillSchemas: () => SkillSchemas = builtOnce(buildSkillSchemas);

// The types of the schemas above (each documented at its schema).
export type SkillSource = z.infer<SkillSchemas['SkillSource']>;
export type SkillType = z.infer<SkillSchemas['SkillType']>;
export type SkillTrigger = z.infer<SkillSchemas['SkillTrigger']>;
export type SkillArgument = z.infer<SkillSchemas['SkillArgument']>;
export type SkillSummary = z.infer<SkillSchemas['SkillSummary']>;
export type SkippedSkill = z.infer<SkillSchemas['SkippedSkill']>;
export type SkillRoot = z.infer<SkillSchemas['SkillRoot']>;
export type SkillCatalog = z.infer<SkillSchemas['SkillCatalog']>;
