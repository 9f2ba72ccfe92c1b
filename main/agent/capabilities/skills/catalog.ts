import { levenshtein } from '#infra/platform/close-names';
import type { SkillCatalog as CatalogPayload, SkillSummary } from '#protocol';
import type { RootScan } from './scanner';
import {
  type SkillDefinition,
  type SkillOverride,
  type SkippedSkillInfo,
  isModelInvocable,
  isUserInvocable,
  normalizeSkillName,
  slashCommandFor,
} from './types';

const NONE: readonly SkillOverride[] = [];

/** The merged skills of every root: on a name clash the root listed first (higher priority) wins. Skills are shared with the scans, never copied or changed. */
export class SkillCatalog {
  readonly skills: readonly SkillDefinition[];
  readonly skipped: readonly SkippedSkillInfo[];
  private readonly byName = new Map<string, SkillDefinition>();
  private readonly hidden = new Map<string, SkillOverride[]>();

  constructor(
    readonly scans: readonly RootScan[],
    readonly version: number,
  ) {
    const skills: SkillDefinition[] = [];
    const skipped: SkippedSkillInfo[] = [];
    for (const scan of scans) {
      skipped.push(...scan.skipped);
      for (const scanned of scan.skills) {
        // A plugin's skill whose name is taken stays usable under its plugin's name (`plugin:skill`).
        const plugin = scan.root.plugin;
        const found =
          plugin && this.byName.has(scanned.name) && !this.byName.has(`${plugin}:${scanned.name}`)
            ? { ...scanned, name: `${plugin}:${scanned.name}` }
            : scanned;
        if (this.byName.has(found.name)) {
          const list = this.hidden.get(found.name) ?? [];
          list.push({ source: found.source, file: found.file });
          this.hidden.set(found.name, list);
          continue;
        }
        this.byName.set(found.name, found);
        skills.push(found);
      }
    }
    this.skills = skills;
    this.skipped = skipped;
  }

  /** Same-named skills from lower-priority roots that `name` hides. */
  overridesOf(name: string): readonly SkillOverride[] {
    return this.hidden.get(name) ?? NONE;
  }

  get size(): number {
    return this.skills.length;
  }

  /** A skill by name, case-insensitively; `/skill:x`, `skill:x` and `/x` forms are accepted. */
  get(name: string): SkillDefinition | undefined {
    const key = normalizeSkillName(name).replace(/^\//, '');
    return this.byName.get(key) ?? (key.startsWith('skill:') ? this.byName.get(key.slice(6)) : undefined);
  }

  /** Up to `limit` names that look like `name` (typos, prefixes, parts), closest first. */
  closeNames(name: string, filter: (skill: SkillDefinition) => boolean = () => true, limit = 5): string[] {
    const key = normalizeSkillName(name).replace(/^\/?(skill:)?/, '');
    const scored: Array<{ name: string; score: number }> = [];
    for (const skill of this.skills) {
      if (!filter(skill)) continue;
      const distance = levenshtein(key, skill.name);
      const related = skill.name.includes(key) || key.includes(skill.name);
      const threshold = Math.max(2, Math.floor(Math.max(key.length, skill.name.length) / 3));
      if (related || distance <= threshold) scored.push({ name: skill.name, score: related ? Math.min(distance, 1) : distance });
    }
    return scored
      .sort((a, b) => a.score - b.score || (a.name < b.name ? -1 : 1))
      .slice(0, limit)
      .map((s) => s.name);
  }

  /**
   * Root folders (real paths) that hold at least one skill: what the file tools may read. `remoteWorkspace`: the file
   * tools reach the remote machine, so only the roots read there count (a local root's path means another folder there).
   */
  readableRoots(remoteWorkspace = false): string[] {
    const roots = new Set<string>();
    for (const scan of this.scans) if (scan.realPath && scan.skills.length && (scan.root.remote === true) === remoteWorkspace) roots.add(scan.realPath);
    return [...roots];
  }

  payload(roots: Array<{ path: string; source: SkillDefinition['source']; exists: boolean; watched: boolean }>): CatalogPayload {
    return { version: this.version, skills: this.skills.map((s) => summarize(s, this.overridesOf(s.name))), skipped: [...this.skipped], roots };
  }
}

export function summarize(skill: SkillDefinition, overrides: readonly SkillOverride[] = NONE): SkillSummary {
  const summary: SkillSummary = {
    name: skill.name,
    description: skill.description,
    type: skill.type,
    source: skill.source,
    file: skill.file,
    dir: skill.dir,
    arguments: skill.arguments,
    modelInvocable: isModelInvocable(skill),
    isSubSkill: skill.isSubSkill,
    overrides: [...overrides],
  };
  if (skill.whenToUse) summary.whenToUse = skill.whenToUse;
  if (skill.argumentHint) summary.argumentHint = skill.argumentHint;
  if (isUserInvocable(skill)) summary.command = slashCommandFor(skill);
  if (skill.license) summary.license = skill.license;
  if (skill.compatibility) summary.compatibility = skill.compatibility;
  if (skill.allowedTools) summary.allowedTools = skill.allowedTools;
  return summary;
}
