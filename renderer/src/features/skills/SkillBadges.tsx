import type { SkillSummary } from '#protocol';

export const SOURCE_LABELS: Record<SkillSummary['source'], string> = {
  explicit: 'Given folder',
  workspace: 'Workspace',
  user: 'User',
  extra: 'Extra',
  plugin: 'Plugin',
  builtin: 'Built-in',
};

export function SourceBadge({ source }: { source: SkillSummary['source'] }) {
  return <span className={`skill-badge skill-source-${source}`}>{SOURCE_LABELS[source]}</span>;
}

export function TypeBadge({ type }: { type: SkillSummary['type'] }) {
  return <span className="skill-badge skill-type">{type}</span>;
}

/** A skill that takes the place of another of the same name: your own (a repository's /deploy over yours) or a built-in. */
export function OverridesBuiltinBadge({ skill }: { skill: SkillSummary }) {
  const hidden = skill.overrides.find((o) => o.source === 'user') ?? skill.overrides.find((o) => o.source === 'builtin');
  if (!hidden || skill.source === 'builtin') return null;
  const whose = hidden.source === 'user' ? 'your own skill' : 'the built-in skill';
  return (
    <span className="skill-badge skill-overrides" title={`Used instead of ${whose} at ${hidden.file}`}>
      {hidden.source === 'user' ? 'Overrides yours' : 'Overrides built-in'}
    </span>
  );
}
