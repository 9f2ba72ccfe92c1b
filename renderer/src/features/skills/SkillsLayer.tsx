import { RunSkillDialog } from './RunSkillDialog';
import { SkillFileDialog } from './SkillFileDialog';
import { SkillGallery } from './SkillGallery';
import { useSkills } from '../../stores/skills';

/** Whichever skills dialog is open: the gallery, a run dialog, or a SKILL.md viewer (one at a time, so Escape closes only it). */
export function SkillsLayer() {
  const view = useSkills((s) => s.view);
  if (!view) return null;
  switch (view.kind) {
    case 'gallery':
      return <SkillGallery onClose={() => useSkills.getState().show(null)} />;
    case 'run':
      return <RunSkillDialog key={view.skill.name} skill={view.skill} fromGallery={view.fromGallery} />;
    case 'file':
      return <SkillFileDialog skill={view.skill} path={view.path} text={view.text} />;
  }
}
