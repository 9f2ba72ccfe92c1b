import type { SessionEvent } from '#protocol';

/**
 * A sub-agent's work as plain text, built from its events as they arrive: what TaskOutput shows of a
 * background sub-agent and the tail its task panel row shows. Answer text streams in; each tool call is
 * one line, and its outcome another.
 */
export class TranscriptText {
  private lineOpen = false;

  constructor(private readonly write: (text: string) => void) {}

  add(event: SessionEvent): void {
    switch (event.type) {
      case 'turn.started':
        this.line(`> ${oneLine(event.text, 400)}`);
        break;
      case 'assistant.delta':
        this.write(event.text);
        this.lineOpen = !event.text.endsWith('\n');
        break;
      case 'tool.call.started':
        this.line(`→ ${event.name}: ${oneLine(event.description, 300)}`);
        break;
      case 'tool.call.result':
        this.line(`${event.isError ? '✗' : '←'} ${event.name}: ${oneLine(event.output, 200)}`);
        break;
      case 'turn.ended':
        if (event.stopReason !== 'end_turn') this.line(`[turn ended: ${event.stopReason}${event.error ? ` — ${event.error.message}` : ''}]`);
        break;
      default:
    }
  }

  private line(text: string): void {
    this.write(`${this.lineOpen ? '\n' : ''}${text}\n`);
    this.lineOpen = false;
  }
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
