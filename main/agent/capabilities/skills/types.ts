import type { SkillArgument, SkillSource, SkillType } from '#protocol';

export type { SkillArgument, SkillSource, SkillTrigger, SkillType } from '#protocol';

/** What a SKILL.md (or flat `<name>.md`) says, before it is placed in a catalog. */
export interface ParsedSkill {
  /** As written (frontmatter `name`, or the flat file's name). */
  displayName: string;
  description: string;
  type: SkillType;
  whenToUse?: string;
  disableModelInvocation: boolean;
  /** Claude Code's `user-invocable: false` hides a skill from users (slash menu, gallery Run). */
  userInvocable: boolean;
  arguments: SkillArgument[];
  argumentHint?: string;
  hasSubSkill: boolean;
  license?: string;
  compatibility?: string;
  metadata?: Record<string, unknown>;
  allowedTools?: string[];
  /** Frontmatter keys Deft does not interpret, kept as written. */
  extra: Record<string, unknown>;
}

/** A skill file read whole: what it says, and its instructions (read again when the skill is loaded, never kept in the catalog). */
export interface ParsedSkillFile extends ParsedSkill {
  /** The Markdown after the frontmatter, trimmed. */
  body: string;
}

/** A skill found on disk. */
export interface SkillDefinition extends ParsedSkill {
  /** Lower-cased and unique within a catalog; sub-skills are `parent.child`. */
  name: string;
  isSubSkill: boolean;
  parent?: string;
  format: 'bundle' | 'flat';
  source: SkillSource;
  /** The root it was found under. */
  root: string;
  /** The skill's folder (a flat skill's root). */
  dir: string;
  file: string;
  /** Changes when the file changes (modification time and size). */
  stamp: string;
  /** A Claude Code command (a `.md` under `.claude/commands`): run as `/<name>`, `$1…$n` counted from 1, `@file` and `!command` lines. */
  fromCommands?: boolean;
  /** Found on a remote workspace's machine (its files are read there). */
  remote?: true;
}

/** A same-named skill from a lower-priority source, hidden by the one in the catalog. */
export interface SkillOverride {
  source: SkillSource;
  file: string;
}

/** A file that looked like a skill but was not used. */
export interface SkippedSkillInfo {
  file: string;
  reason: string;
  source: SkillSource;
}

/** A folder scanned for skills, in priority order. */
export interface SkillRootSpec {
  path: string;
  source: SkillSource;
  /** Watched for changes (workspace, user and explicit roots). */
  watch: boolean;
  /** A Claude Code commands folder: every `.md` below it is a command, `sub/name.md` named `sub:name`. */
  commands?: boolean;
  /**
   * On the workspace's machine when that is not this one (a remote folder's `.deft/skills`…): read through the
   * workspace's Environment, never watched (read again at each turn's start), never opened in this machine's file manager.
   */
  remote?: boolean;
  /** An installed plugin's folder: a skill whose name is taken by a higher-priority one is named `<plugin>:<name>` instead of hidden. */
  plugin?: string;
}

/** Where a root is: a remote root and a local one of the same path are two roots. */
export function rootKey(root: Pick<SkillRootSpec, 'path' | 'remote'>): string {
  return root.remote ? `remote:${root.path}` : root.path;
}

/** A problem that makes a file unusable as a skill; the message is shown to the user as the reason. */
export class SkillParseError extends Error {
  override name = 'SkillParseError';
}

export const MAX_SKILL_SCAN_DEPTH = 8;
export const MAX_SKILL_NESTING = 3;
export const LISTING_DESCRIPTION_CHARS = 250;

/** Names are case-insensitive: `Write-TUI` and `write-tui` are one skill; `write_tui` is another. */
export function normalizeSkillName(name: string): string {
  return name.trim().toLowerCase();
}

/** prompt and inline skills (without disable-model-invocation) are the ones the model may load. */
export function isModelInvocable(skill: Pick<SkillDefinition, 'type' | 'disableModelInvocation'>): boolean {
  return (skill.type === 'prompt' || skill.type === 'inline') && !skill.disableModelInvocation;
}

/** Users may run prompt, inline and flow skills (reference skills are for reading only). */
export function isUserInvocable(skill: Pick<SkillDefinition, 'type' | 'userInvocable'>): boolean {
  return skill.type !== 'reference' && skill.userInvocable;
}

/** Built-ins and sub-skills run as `/<name>`; every other skill as `/skill:<name>` so it cannot clash with app commands. */
export function slashCommandFor(skill: Pick<SkillDefinition, 'name' | 'source' | 'isSubSkill' | 'fromCommands'>): string {
  return skill.source === 'builtin' || skill.isSubSkill || skill.fromCommands ? skill.name : `skill:${skill.name}`;
}
