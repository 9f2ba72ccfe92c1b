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
