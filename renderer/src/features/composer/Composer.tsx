import { useEffect, useRef, useState } from 'react';
import { Icon } from '../../components/Icon';
import { cancelTurn, sendPrompt } from '../../stores/actions';
import { useSessions } from '../../stores/sessions';
import { ModeSelect } from '../permissions/ModeSelect';
import { PlanToggle } from '../plan/PlanToggle';
import { planCommand } from '../plan/plan-command';
import { runSkill } from '../skills/actions';
import { useSlashMenu } from '../skills/SlashMenu';

/** The message box: Enter sends, Shift+Enter adds a line, Escape (or Stop) ends a running turn. */
export function Composer() {
  const [text, setText] = useState('');
  const running = useSessions((s) => s.transcript.runningTurn !== null);
  const ref = useRef<HTMLTextAreaElement>(null);
  const slash = useSlashMenu(text, setText);

  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    el.style.height = 'auto';
    el.style.height = `${Math.min(el.scrollHeight, 320)}px`;
  }, [text]);

  useEffect(() => {
    const focus = () => ref.current?.focus();
    window.addEventListener('deft:focus-composer', focus);
    return () => window.removeEventListener('deft:focus-composer', focus);
  }, []);

  const submit = async () => {
    const command = planCommand(text);
    if (command) {
      setText('');
      if (!(await command.run(running))) setText(text);
      return;
    }
    if (running || !text.trim()) return;
    const sent = text;
    setText('');
    const skill = slash.parse(sent);
    if (!(await (skill ? runSkill(skill.skill.name, skill.args) : sendPrompt(sent)))) setText(sent);
  };

  return (
    <form
      className="composer"
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
    >
      {slash.menu}
      {slash.hint}
      <textarea
        ref={ref}
        {...slash.inputProps}
        aria-label="Message"
        placeholder={running ? 'Deft is working… (Esc to stop)' : 'Ask Deft to read, change or explain code…'}
        rows={1}
        value={text}
        autoFocus
        onChange={(e) => setText(e.target.value)}
        onKeyDown={(e) => {
          // `/plan` is the composer's own command: it wins over the skills menu.
          if (!(e.key === 'Enter' && planCommand(text)) && slash.onKeyDown(e)) return;
          if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
            e.preventDefault();
            void submit();
          } else if (e.key === 'Escape' && running) {
            e.preventDefault();
            void cancelTurn();
          }
        }}
      />
      <div className="composer-actions">
        <div className="composer-controls">
          <ModeSelect />
          <PlanToggle />
          <span className="composer-hint">Enter to send · Shift+Enter for a new line · / for skills · /plan</span>
        </div>
        {running ? (
          <button type="button" className="button button-stop" onClick={() => void cancelTurn()}>
            <Icon name="stop" size={14} /> Stop
          </button>
        ) : (
          <button type="submit" className="button button-primary" disabled={!text.trim()} aria-label="Send">
            Send <Icon name="send" size={14} />
          </button>
        )}
      </div>
    </form>
  );
}
