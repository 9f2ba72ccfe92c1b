import { useEffect, useRef, useState } from 'react';
import type { SkillSummary } from '#protocol';
import { Dialog } from '../../components/Dialog';
import { runSkill } from '../../actions/skills';
import { joinArgs } from './args';
import { SourceBadge, TypeBadge } from './SkillBadges';
import { useSkills } from '../../stores/skills';
import './skills.css';

/** Asks for a skill's arguments — one field per declared argument, or one free-form line — and starts it in the current session. */
export function RunSkillDialog({ skill, fromGallery }: { skill: SkillSummary; fromGallery: boolean }) {
  const named = skill.arguments;
  const [values, setValues] = useState<string[]>(() => named.map(() => ''));
  const [free, setFree] = useState('');
  const [busy, setBusy] = useState(false);
  const firstField = useRef<HTMLInputElement>(null);
  const back = () => useSkills.getState().show(fromGallery ? { kind: 'gallery' } : null);

  useEffect(() => {
    const timer = setTimeout(() => firstField.current?.focus(), 0);
    return () => clearTimeout(timer);
  }, []);

  const submit = async () => {
    if (busy) return;
    setBusy(true);
    const args = named.length ? joinArgs(values) : free;
    const started = await runSkill(skill.name, args);
    setBusy(false);
    if (started) useSkills.getState().show(null);
  };

  return (
    <Dialog
      title={`Run ${skill.name}`}
      onClose={back}
      footer={
        <>
          <button type="button" className="button" onClick={back}>
            {fromGallery ? 'Back' : 'Cancel'}
          </button>
          <button type="submit" form="run-skill-form" className="button button-primary" disabled={busy}>
            Run skill
          </button>
        </>
      }
    >
      <form
        id="run-skill-form"
        className="provider-form run-skill-form"
        onSubmit={(e) => {
          e.preventDefault();
          void submit();
        }}
      >
        <p className="skill-run-summary">
          <TypeBadge type={skill.type} /> <SourceBadge source={skill.source} /> <code>/{skill.command}</code>
        </p>
        <p className="skill-run-description">{skill.description}</p>
        {named.length ? (
          named.map((arg, i) => (
            <div key={arg.name} className="skill-field">
              <label htmlFor={`skill-arg-${arg.name}`}>{arg.name}</label>
              <input
                id={`skill-arg-${arg.name}`}
                ref={i === 0 ? firstField : undefined}
                value={values[i] ?? ''}
                placeholder={arg.description ?? ''}
                onChange={(e) => setValues((v) => v.map((old, j) => (j === i ? e.target.value : old)))}
              />
              {arg.description ? <p className="form-note">{arg.description}</p> : null}
            </div>
          ))
        ) : (
          <div className="skill-field">
            <label htmlFor="skill-args">Arguments</label>
            <input id="skill-args" ref={firstField} value={free} placeholder={skill.argumentHint ?? 'Optional'} onChange={(e) => setFree(e.target.value)} />
            <p className="form-note">Written like a command line: quote a value that contains spaces.</p>
          </div>
        )}
      </form>
    </Dialog>
  );
}
