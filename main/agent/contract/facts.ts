/**
 * A fact about a session that changes while it runs: the todo list, the goal, the permission mode, plan
 * mode, the skill listing, the background tasks running. The model learns a fact from a reminder message
 * appended at the end of the conversation when it changes — never from the system prompt or a tool
 * description, which stay byte-stable so the provider's prompt cache keeps serving the whole prefix.
 *
 * Before each model step the runtime asks every capability for its facts and compares each with what
 * the conversation last told the model under the same key (the history itself is the record, so this
 * holds across restarts, undo and compaction): what differs is sent, once, in one reminder message.
 */
export interface Fact {
  /** Unique across capabilities: 'todo', 'goal', 'permissions.mode'. */
  key: string;
  /** The fact as the model reads it now (a `<system-reminder>` block); null when there is nothing to say. */
  text: string | null;
  /** Said once when a fact the model was told about becomes null (the user cancelled the goal). Without it, nothing is said. */
  gone?: string;
  /** About the session's own agent's work (its todo list, goal, background tasks): a sub-agent is never told. */
  mainAgentOnly?: boolean;
  /** Told only to an agent that has this tool (the skill listing: the Skill tool). */
  forTool?: string;
}

/** The reminder block every fact is written in. */
export function reminder(text: string): string {
  return `<system-reminder>\n${text.trim()}\n</system-reminder>`;
}
