import { memo, useState } from 'react';
import type { SkillSummary } from '#protocol';
import { Icon } from '../../components/Icon';
import { openSkillFolder, viewSkillFile } from '../../actions/skills';
import { OverridesBuiltinBadge, SOURCE_LABELS, SourceBadge, TypeBadge } from './SkillBadges';
import { useSkills } from '../../stores/skills';

/** One skill in the gallery: what it is, where it comes from, and Run / View SKILL.md / Open folder. */
export const SkillCard = memo(function SkillCard({ skill }: { skill: SkillSummary }) {
  const [folder, setFolder] = useState<string | null>(null);
  const usage = skill.type === 'reference' ? 'Reference only' : skill.modelInvocable ? 'You or the model' : 'Only you';
  return (
    <article className="skill-card" aria-label={`Skill ${skill.name}`}>
      <header className="skill-card-head">
        <h3 className="skill-name">{skill.name}</h3>
        <span className="skill-badges">
          <TypeBadge type={skill.type} />
          <SourceBadge source={skill.source} />
          <OverridesBuiltinBadge skill={skill} />
        </span>
      </header>
      <p className="skill-description" title={skill.description}>
        {skill.description}
      </p>
      <dl className="skill-meta">
        {skill.command ? (
          <div>
            <dt>Command</dt>
            <dd>
              <code>/{skill.command}</code>
              {skill.argumentHint ? <span className="skill-hint"> {skill.argumentHint}</span> : null}
            </dd>
          </div>
        ) : null}
        <div>
          <dt>Started by</dt>
          <dd>{usage}</dd>
        </div>
        {skill.overrides.length ? (
          <div>
            <dt>Overrides</dt>
            <dd title={skill.overrides.map((o) => o.file).join('\n')}>{skill.overrides.map((o) => SOURCE_LABELS[o.source]).join(', ')}</dd>
          </div>
        ) : null}
      </dl>
      {folder ? (
        <p className="skill-folder" role="status">
          <Icon name="folder" size={12} /> <code>{folder}</code>
          <button type="button" className="link-button" onClick={() => void navigator.clipboard?.writeText(folder)}>
            Copy
          </button>
        </p>
      ) : null}
      <footer className="skill-actions">
        {skill.command ? (
          <button
            type="button"
            className="button button-primary button-small"
            aria-label={`Run ${skill.name}`}
            onClick={() => useSkills.getState().show({ kind: 'run', skill, fromGallery: true })}
          >
            Run
          </button>
        ) : null}
        <button type="button" className="button button-small" aria-label={`View SKILL.md of ${skill.name}`} onClick={() => void viewSkillFile(skill)}>
          <Icon name="file" size={13} /> View SKILL.md
        </button>
        <button
          type="button"
          className="button button-small button-ghost"
          aria-label={`Open folder of ${skill.name}`}
          onClick={() => void openSkillFolder(skill).then((r) => setFolder(r.opened ? null : r.path))}
        >
          <Icon name="folder" size={13} /> Open folder
        </button>
      </footer>
    </article>
  );
});
