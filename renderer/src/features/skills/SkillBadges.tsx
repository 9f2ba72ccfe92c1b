import type { SkillSummary } from '../../../../protocol';

export const SOURCE_LABELS: Record<SkillSummary['source'], string> = {
  explicit: 'Given folder',
  workspace: 'Workspace',
  user: 'User',
  extra: 'Extra',
  builtin: 'Built-in',
};

export function SourceBadge({ source }: { source: SkillSummary['source'] }) {
  return <span className={`skill-badge skill-source-${source}`}>{SOURCE_LABELS[source]}</span>;
}

export function TypeBadge({ type }: { type: SkillSummary['type'] }) {
  return <span className="skill-badge skill-type">{type}</span>;
}

/** A skill that takes the place of a built-in one of the same name (e.g. a repository's own /commit). */
export function OverridesBuiltinBadge({ skill }: { skill: SkillSummary }) {
  const hidden = skill.overrides.find((o) => o.source === 'builtin');
  if (!hidden || skill.source === 'builtin') return null;
  return (
    <span className="skill-badge skill-overrides" title={`Used instead of the built-in skill at ${hidden.file}`}>
      Overrides built-in
    </span>
  );
}
