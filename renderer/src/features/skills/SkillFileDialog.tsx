import { Dialog } from '../../components/Dialog';
import type { SkillSummary } from '#protocol';
import { useSkills } from '../../stores/skills';
import './skills.css';

/** The text of a skill's SKILL.md, as it is on disk. */
export function SkillFileDialog({ skill, path, text }: { skill: SkillSummary; path: string; text: string }) {
  const back = () => useSkills.getState().show({ kind: 'gallery' });
  return (
    <Dialog
      title={`${skill.name} — SKILL.md`}
      onClose={back}
      wide
      footer={
        <button type="button" className="button" onClick={back}>
          Back to skills
        </button>
      }
    >
      <p className="skill-file-path">
        <code>{path}</code>
      </p>
      <pre className="skill-file-text" aria-label="SKILL.md contents" tabIndex={0}>
        {text}
      </pre>
    </Dialog>
  );
}
