import type { Attachment, ErrorInfo, SessionEvent, ToolInputDisplay, ToolResultDisplay, Usage } from '../../../protocol';
import { type CompactionItem, type HistoryState, compactionEnded, compactionItemId, compactionStarted, emptyHistory, undoNotice } from '../features/context/history';
import { type ChangesItem, changedFiles } from '../features/files/changes';
import { type ControlState, applyControl, emptyControl } from './control';

export interface UserItem {
  kind: 'user';
  id: string;
  turnId: string;
  text: string;
  attachments: Attachment[];
}
export interface AssistantItem {
  kind: 'assistant';
  id: string;
  turnId: string;
  step: number;
  text: string;
  thinking: string;
  streaming: boolean;
}
export interface ToolItem {
  kind: 'tool';
  id: string;
  turnId: string;
  name: string;
  args: unknown;
  description: string;
  display: ToolInputDisplay;
  status: 'running' | 'done' | 'error';
  progress: string;
  result?: { output: string; isError: boolean; display?: ToolResultDisplay; durationMs: number };
}
export interface NoticeItem {
  kind: 'notice';
  id: string;
  turnId?: string;
  level: 'info' | 'warning' | 'error';
  text: string;
  code?: string;
}
export interface SkillItem {
  kind: 'skill';
  id: string;
  turnId?: string;
  name: string;
  args: string;
  trigger: 'user' | 'model' | 'nested';
  source: string;
  content: string;
}
export type TranscriptItem = UserItem | AssistantItem | ToolItem | NoticeItem | SkillItem | ChangesItem | CompactionItem;

export interface Transcript {
  items: TranscriptItem[];
  lastSeq: number;
  runningTurn: string | null;
  /** The error that ended the latest turn, shown as a banner until the next turn starts. */
  lastError: ErrorInfo | null;
  usage: Usage | null;
  /** Permission mode, plan mode, todos, goal, and what waits for the user (control.ts). */
  control: ControlState;
  /** Undone turns and the compaction running now (features/context/history.ts). */
  history: HistoryState;
}

export const emptyTranscript: Transcript = { items: [], lastSeq: 0, runningTurn: null, lastError: null, usage: null, control: emptyControl, history: emptyHistory };

/** Live progress kept per tool card; older output scrolls off. */
const MAX_PROGRESS_CHARS = 64_000;

function replaceItem(items: TranscriptItem[], id: string, update: (item: TranscriptItem) => TranscriptItem): TranscriptItem[] {
  for (let i = items.length - 1; i >= 0; i--) {
    if (items[i]!.id === id) {
      const next = items.slice();
      next[i] = update(items[i]!);
      return next;
    }
  }
  return items;
}

const assistantId = (turnId: string, step: number) => `${turnId}:a${step}`;

/** Apply events in order. Events at or below `lastSeq` are ignored, so replays and live events can overlap. */
export function applyEvents(state: Transcript, events: readonly SessionEvent[]): Transcript {
  let next = state;
  for (const event of events) next = applyEvent(next, event);
  return next;
}

const MODE_LABELS = { ask: 'Ask', 'accept-edits': 'Accept edits', yolo: 'Yolo' } as const;

export function applyEvent(state: Transcript, event: SessionEvent): Transcript {
  if (event.seq <= state.lastSeq) return state;
  const s: Transcript = { ...state, lastSeq: event.seq, control: applyControl(state.control, event) };
  switch (event.type) {
    case 'turn.started':
      return {
        ...s,
        runningTurn: event.turnId,
        lastError: null,
        items: [...s.items, { kind: 'user', id: `${event.turnId}:u`, turnId: event.turnId, text: event.text, attachments: event.attachments }],
      };
    case 'assistant.delta':
    case 'thinking.delta': {
      const id = assistantId(event.turnId, event.step);
      const field = event.type === 'assistant.delta' ? 'text' : 'thinking';
      const exists = s.items.some((i) => i.id === id);
      if (!exists) {
        const item: AssistantItem = { kind: 'assistant', id, turnId: event.turnId, step: event.step, text: '', thinking: '', streaming: true };
        item[field] = event.text;
        return { ...s, items: [...s.items, item] };
      }
      return { ...s, items: replaceItem(s.items, id, (i) => ({ ...(i as AssistantItem), [field]: (i as AssistantItem)[field] + event.text })) };
    }
    case 'step.retrying': {
      const id = assistantId(event.turnId, event.step);
      const seconds = Math.max(1, Math.round(event.delayMs / 1000));
      const notice: NoticeItem = {
        kind: 'notice',
        id: `${event.turnId}:retry${event.step}`,
        turnId: event.turnId,
        level: 'warning',
        text: `${event.error.message} Retrying in ${seconds} s (attempt ${event.attempt + 1} of ${event.maxAttempts}).`,
        code: event.error.code,
      };
      const items = s.items.filter((i) => i.id !== id && i.id !== notice.id);
      return { ...s, items: [...items, notice] };
    }
    case 'step.ended':
      return { ...s, items: replaceItem(s.items, assistantId(event.turnId, event.step), (i) => ({ ...(i as AssistantItem), streaming: false })) };
    case 'tool.call.started':
      return {
        ...s,
        items: [
          ...s.items,
          {
            kind: 'tool',
            id: event.callId,
            turnId: event.turnId,
            name: event.name,
            args: event.args,
            description: event.description,
            display: event.display,
            status: 'running',
            progress: '',
          },
        ],
      };
    case 'tool.call.progress':
      return {
        ...s,
        items: replaceItem(s.items, event.callId, (i) => {
          const item = i as ToolItem;
          const progress = event.kind === 'status' || event.kind === 'progress' ? event.text : (item.progress + event.text).slice(-MAX_PROGRESS_CHARS);
          return { ...item, progress };
        }),
      };
    case 'tool.call.result':
      return {
        ...s,
        items: replaceItem(s.items, event.callId, (i) => ({
          ...(i as ToolItem),
          status: event.isError ? 'error' : 'done',
          result: { output: event.output, isError: event.isError, durationMs: event.durationMs, ...(event.display ? { display: event.display } : {}) },
        })),
      };
    case 'turn.ended': {
      const items = s.items.map((i) => (i.kind === 'assistant' && i.turnId === event.turnId && i.streaming ? { ...i, streaming: false } : i));
      const changed = changedFiles(items, event.turnId);
      if (changed.length) items.push({ kind: 'changes', id: `${event.turnId}:changes`, turnId: event.turnId, files: changed });
      if (event.stopReason === 'cancelled') items.push({ kind: 'notice', id: `${event.turnId}:end`, turnId: event.turnId, level: 'info', text: 'Stopped.' });
      if (event.stopReason === 'max_steps') {
        items.push({ kind: 'notice', id: `${event.turnId}:end`, turnId: event.turnId, level: 'warning', text: 'Stopped at the step limit before the model finished.' });
      }
      if (event.stopReason === 'max_tokens') {
        items.push({ kind: 'notice', id: `${event.turnId}:end`, turnId: event.turnId, level: 'warning', text: 'The model hit its output limit; the answer may be cut short.' });
      }
      if (event.error) items.push({ kind: 'notice', id: `${event.turnId}:end`, turnId: event.turnId, level: 'error', text: event.error.message, code: event.error.code });
      return { ...s, items, runningTurn: s.runningTurn === event.turnId ? null : s.runningTurn, lastError: event.error ?? null };
    }
    case 'usage':
      return { ...s, usage: event.total };
    case 'error':
      return { ...s, items: [...s.items, { kind: 'notice', id: `err${event.seq}`, level: 'error', text: event.message, code: event.code }] };
    case 'skill.activated': {
      const { turnId, name, args, trigger, source, content } = event;
      const item: SkillItem = { kind: 'skill', id: `skill${event.seq}`, ...(turnId ? { turnId } : {}), name, args, trigger, source, content };
      return { ...s, items: [...s.items, item] };
    }
    case 'session.updated':
    case 'step.started':
      return s;
    // The user in control: kept in `control`; mode and plan switches also leave a line in the transcript.
    case 'permission.mode.changed':
      return { ...s, items: [...s.items, { kind: 'notice', id: `mode${event.seq}`, level: 'info', text: `Permission mode: ${MODE_LABELS[event.mode]}` }] };
    case 'plan.mode.changed':
      return { ...s, items: [...s.items, { kind: 'notice', id: `plan${event.seq}`, level: 'info', text: event.plan.active ? 'Plan mode on' : 'Plan mode off' }] };
    // Context: compaction notices; undone turns stay in the transcript, marked.
    case 'compaction.started':
      return { ...s, history: { ...s.history, compacting: event.compactionId }, items: [...s.items.filter((i) => i.id !== compactionItemId(event.compactionId)), compactionStarted(event)] };
    case 'compaction.ended': {
      const id = compactionItemId(event.compactionId);
      const existing = s.items.find((i): i is CompactionItem => i.id === id && i.kind === 'compaction');
      const items = existing ? replaceItem(s.items, id, () => compactionEnded(existing, event)) : [...s.items, compactionEnded(undefined, event)];
      return { ...s, items, history: { ...s.history, compacting: s.history.compacting === event.compactionId ? null : s.history.compacting } };
    }
    case 'turns.undone': {
      const undone = { ...s.history.undone };
      for (const id of event.turnIds) undone[id] = true;
      const notice: NoticeItem = { kind: 'notice', id: `undo${event.seq}`, level: 'info', text: undoNotice(event.turnIds.length) };
      return { ...s, history: { ...s.history, undone }, items: [...s.items, notice] };
    }
    case 'approval.requested':
    case 'approval.resolved':
    case 'question.asked':
    case 'question.answered':
    case 'todo.updated':
    case 'goal.updated':
      return s;
  }
}
