import { parseContextCommand } from './parse-command';

/** A line above the message box while /compact or /undo is typed: what Enter will do (and that files stay as they are). */
export function ContextHint({ text }: { text: string }) {
  const command = parseContextCommand(text);
  if (!command) return null;
  let body;
  if (command.kind === 'compact') {
    body = (
      <>
        Enter runs <strong>/compact</strong>: Deft writes itself a handoff note and reads that instead of the conversation so far
        {command.instructions ? ', taking care of what you wrote' : ' (add text to say what the note must keep)'}.
      </>
    );
  } else if (command.kind === 'undo') {
    const turns = command.count === 1 ? 'the last turn' : `the last ${command.count} turns`;
    body = (
      <>
        Enter runs <strong>/undo</strong>: takes back {turns} — the model stops reading {command.count === 1 ? 'it' : 'them'}, the todo list and plan mode roll
        back. Files are not restored (/rewind restores them).
      </>
    );
  } else {
    body = command.message;
  }
  return (
    <div className="slash-hint" aria-live="polite">
      {body}
    </div>
  );
}
