import { memo, useState } from 'react';
import { Icon } from '../../components/Icon';
import type { SkillItem } from '../../stores/skills';
import { Markdown } from '../conversation/Markdown';
import './skills.css';

const TRIGGERS: Record<SkillItem['trigger'], string> = { user: 'run by you', model: 'loaded by the model', nested: 'loaded by another skill' };

/** A skill loaded into the conversation: its name and arguments; expands to the instructions the model received. */
export const SkillActivationCard = memo(function SkillActivationCard({ item }: { item: SkillItem }) {
  const [open, setOpen] = useState(false);
  return (
    <section className="skill-activation" role="group" aria-label={`Skill ${item.name}`}>
      <button type="button" className="tool-header" aria-expanded={open} onClick={() => setOpen(!open)}>
        <Icon name="chevron" size={12} className={`chevron${open ? ' chevron-open' : ''}`} />
        <Icon name="spark" size={14} className="skill-activation-icon" />
        <span className="tool-name">Skill</span>
        <span className="skill-activation-name">{item.name}</span>
        {item.args ? <code className="skill-activation-args">{item.args}</code> : null}
        <span className="tool-status">{TRIGGERS[item.trigger]}</span>
      </button>
      {open ? (
        <div className="tool-body skill-activation-body">
          <Markdown text={item.content} />
        </div>
      ) : null}
    </section>
  );
});
