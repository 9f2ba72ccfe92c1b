import type { PlanEntry, SessionUpdate, ToolCallContent } from '@agentclientprotocol/sdk';
import type { SessionEvent } from '#protocol';
import { modeId } from './modes';
import { commandText, diffContent, resultContent, tail, textContent, toolKind, toolLocations } from './tool-calls';

/**
 * Deft's session events as ACP `session/update`s, for one session. It keeps what a later event needs: each running
 * command's output so far, and the modes (a permission mode and plan mode make one ACP mode).
 * `replay` (session/load) also gives the user's own messages, which a live client has already shown.
 */
export class SessionUpdates {
  private readonly output = new Map<string, string>();
  /** The editor's terminal each command runs in, by tool call, where it runs in one: the call shows that terminal. */
  private readonly terminals = new Map<string, string>();
  private permission: 'ask' | 'accept-edits' | 'yolo' = 'ask';
  private plan = false;
  private title = '';

  constructor(private readonly cwd: string) {}

  /** The current ACP mode id. */
  get mode(): string {
    return modeId(this.permission, this.plan);
  }

  /** Seed the modes from the session's state (before any event says otherwise). */
  setModes(permission: 'ask' | 'accept-edits' | 'yolo', plan: boolean): void {
    this.permission = permission;
    this.plan = plan;
  }

  /** The call's command runs in the editor's terminal `terminalId`: the call shows it instead of streamed text. */
  terminal(toolCallId: string, terminalId: string): SessionUpdate[] {
    this.terminals.set(toolCallId, terminalId);
    return [{ sessionUpdate: 'tool_call_update', toolCallId, content: [{ type: 'terminal', terminalId }] }];
  }

  translate(event: SessionEvent, replay = false): SessionUpdate[] {
    switch (event.type) {
      case 'turn.started':
        return replay || event.origin !== 'user'
          ? [{ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: event.text }, messageId: event.turnId }]
          : [];
      case 'assistant.delta':
        return [{ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: event.text }, messageId: `${event.turnId}-${event.step}` }];
      case 'thinking.delta':
        return [{ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: event.text }, messageId: `${event.turnId}-${event.step}-thought` }];
      case 'tool.call.started': {
        const content: ToolCallContent[] = event.display.kind === 'diff' ? [diffContent(event.display, this.cwd)] : [];
        if (event.display.kind === 'command') content.push(textContent(commandText(`$ ${event.display.command}`)));
        return [
          {
            sessionUpdate: 'tool_call',
            toolCallId: event.callId,
            title: event.description,
            name: event.name,
            kind: toolKind(event.name, event.display),
            status: 'in_progress',
            locations: toolLocations(event.display, this.cwd),
            content,
            rawInput: event.args,
          },
        ];
      }
      case 'tool.call.progress': {
        if (event.kind !== 'stdout' && event.kind !== 'stderr' && event.kind !== 'output') return [];
        if (this.terminals.has(event.callId)) return [];
        const soFar = tail((this.output.get(event.callId) ?? '') + event.text);
        this.output.set(event.callId, soFar);
        return [{ sessionUpdate: 'tool_call_update', toolCallId: event.callId, content: [textContent(commandText(soFar))] }];
      }
      case 'tool.call.result': {
        this.output.delete(event.callId);
        const terminalId = this.terminals.get(event.callId);
        this.terminals.delete(event.callId);
        const locations = event.display ? toolLocations(event.display, this.cwd) : [];
        return [
          {
            sessionUpdate: 'tool_call_update',
            toolCallId: event.callId,
            status: event.isError ? 'failed' : 'completed',
            // The editor keeps showing a released terminal: the call's content stays that terminal.
            content: terminalId ? [{ type: 'terminal', terminalId }] : resultContent(event.display, event.output, this.cwd),
            ...(locations.length ? { locations } : {}),
            rawOutput: { output: tail(event.output) },
          },
        ];
      }
      case 'todo.updated':
        return [{ sessionUpdate: 'plan', entries: event.items.map(planEntry) }];
      case 'permission.mode.changed':
        this.permission = event.mode;
        return [{ sessionUpdate: 'current_mode_update', currentModeId: this.mode }];
      case 'plan.mode.changed':
        this.plan = event.plan.active;
        return [{ sessionUpdate: 'current_mode_update', currentModeId: this.mode }];
      case 'session.updated':
        if (!event.session.title || event.session.title === this.title) return [];
        this.title = event.session.title;
        return [{ sessionUpdate: 'session_info_update', title: this.title }];
      case 'error':
        return replay ? [] : [{ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `\n\n⚠ ${event.message}\n` } }];
      default:
        return [];
    }
  }
}

function planEntry(item: { title: string; status: 'pending' | 'in_progress' | 'done' }): PlanEntry {
  return { content: item.title, priority: 'medium', status: item.status === 'done' ? 'completed' : item.status };
}
