import { create } from 'zustand';
import type { Attachment, ErrorInfo, Mention, SessionEvent, StopReason, ToolInputDisplay, ToolResultDisplay, TurnOrigin, Usage } from '#protocol';
import { fileTextOf } from '#protocol/helpers/file-text';
import { type ChangesItem, changeRows } from './changes';
import { type RewindItem, rewindRows } from './checkpoints';
import { type CompactionItem, historyRows } from './history';
import { type QuietHook, type QuietHooksItem, hookRows, quietHookOf } from './hooks';
import { modeRows } from './modes';
import { type SteerItem, steerRows } from './queue';
import {
  type NoticeItem,
  type Row,
  type RowHandlers,
  appendRow,
  indexFromEnd,
  promptRowId,
  removeRow,
  replaceAt,
  replaceRow,
  sealRows,
  turnStart,
} from './rows';
import { type Handlers, type SessionSlice, combine, lift, reduce } from './session-slice';
import { type SkillItem, skillRows } from './skills';

export type { NoticeItem } from './rows';

export interface UserItem extends Row {
  kind: 'user';
  turnId: string;
  text: string;
  attachments: Attachment[];
  /** Files the prompt mentioned with @. */
  mentions: Mention[];
  /** When it was sent. */
  at: number;
  /** Its turn's first event: where the page of the turns before it ends (see dropEarlierTurns). */
  seq: number;
  /** Who started the turn: the user's own prompts (and skills) bring the view to the newest. */
  origin?: TurnOrigin;
}
export interface AssistantItem extends Row {
  kind: 'assistant';
  turnId: string;
  step: number;
  text: string;
  thinking: string;
  streaming: boolean;
  /** When the step's first text or reasoning arrived. */
  at: number;
  /** When reasoning began and ended (its first answer text, or the step's end): "Thought for 4 s". */
  thinkingFrom?: number;
  thinkingUntil?: number;
}
export interface ToolItem extends Row {
  kind: 'tool';
  turnId: string;
  name: string;
  args: unknown;
  description: string;
  display: ToolInputDisplay;
  status: 'running' | 'done' | 'error';
  progress: string;
  /** When the call started (the event's time). */
  startedAt?: number;
  result?: { output: string; isError: boolean; display?: ToolResultDisplay; durationMs: number };
  /** Hooks that ran around the call and changed nothing: a badge on the card. */
  hooks?: QuietHook[];
}
/** Every kind of row; the conversation view picks a component per kind. */
export type TranscriptItem =
  | UserItem
  | AssistantItem
  | ToolItem
  | NoticeItem
  | SkillItem
  | ChangesItem
  | CompactionItem
  | RewindItem
  | SteerItem
  | QuietHooksItem;

/** The open session's conversation: its rows, the turn running now, its last error and token usage. */
export interface Transcript {
  items: TranscriptItem[];
  runningTurn: string | null;
  /** The error that ended the latest turn, shown as a banner until the next turn starts. */
  lastError: ErrorInfo | null;
  usage: Usage | null;
  /** Quiet hooks of calls whose card is not there yet (PreToolUse hooks run before a call starts), by call id. */
  waitingHooks: Readonly<Record<string, QuietHook[]>>;
}

export const emptyTranscript: Transcript = { items: [], runningTurn: null, lastError: null, usage: null, waitingHooks: {} };

/** Live progress kept per tool card; older output scrolls off. */
const MAX_PROGRESS_CHARS = 64_000;

const assistantId = (turnId: string, step: number) => `${turnId}:a${step}`;

const STOP_NOTICES: Partial<Record<StopReason, Pick<NoticeItem, 'level' | 'text'>>> = {
  cancelled: { level: 'info', text: 'Stopped.' },
  max_steps: { level: 'warning', text: 'Stopped at the step limit before the model finished.' },
  max_tokens: { level: 'warning', text: 'The model hit its output limit; the answer may be cut short.' },
};

const append = (state: Transcript, item: TranscriptItem): Transcript => ({ ...state, items: appendRow(state.items, item) });

/** Prompts, streamed answers, tool calls and how turns end: the events the conversation itself owns. */
const conversation: Handlers<Transcript> = {
  'turn.started': (state, event) => ({
    ...append(state, {
      kind: 'user',
      id: promptRowId(event.turnId),
      turnId: event.turnId,
      text: event.text,
      attachments: event.attachments,
      mentions: event.mentions ?? [],
      at: event.at,
      seq: event.seq,
      origin: event.origin,
    }),
    runningTurn: event.turnId,
    lastError: null,
  }),
  'assistant.delta': (state, event) => streamed(state, event.turnId, event.step, 'text', event.text, event.at),
  'thinking.delta': (state, event) => streamed(state, event.turnId, event.step, 'thinking', event.text, event.at),
  'step.retrying': (state, event) => {
    const id = assistantId(event.turnId, event.step);
    const notice: NoticeItem = {
      kind: 'notice',
      id: retryRowId(event.turnId, event.step),
      turnId: event.turnId,
      level: 'warning',
      text: event.error.message,
      code: event.error.code,
      retry: { at: event.at + event.delayMs, attempt: event.attempt + 1, maxAttempts: event.maxAttempts },
    };
    return { ...state, items: appendRow(removeRow(removeRow(state.items, id), notice.id), notice) };
  },
  'step.ended': (state, event) => ({
    ...state,
    items: replaceRow(state.items, assistantId(event.turnId, event.step), (i) => thoughtUntil({ ...(i as AssistantItem), streaming: false }, event.at)),
  }),
  'tool.call.started': (state, event) =>
    append(state, {
      kind: 'tool',
      id: event.callId,
      turnId: event.turnId,
      name: event.name,
      args: event.args,
      description: event.description,
      display: event.display,
      status: 'running',
      progress: '',
      startedAt: event.at,
    }),
  'tool.call.progress': (state, event) => ({
    ...state,
    items: replaceRow(state.items, event.callId, (i) => {
      const item = i as ToolItem;
      const progress = event.kind === 'status' || event.kind === 'progress' ? event.text : (item.progress + event.text).slice(-MAX_PROGRESS_CHARS);
      return { ...item, progress };
    }),
  }),
  'tool.call.result': (state, event) => ({
    ...state,
    items: replaceRow(state.items, event.callId, (i) => ({
      ...(i as ToolItem),
      status: event.isError ? 'error' : 'done',
      result: {
        output: event.output,
        isError: event.isError,
        durationMs: event.durationMs,
        ...(event.display ? { display: withText(event.display, event.output) } : {}),
      },
    })),
  }),
  'turn.ended': (state, event) => {
    // Only the turn's own rows (from its prompt on) can still be streaming.
    let items: readonly TranscriptItem[] = state.items;
    for (let i = turnStart(items, event.turnId); i < items.length; i++) {
      const row = items[i]!;
      if (row.kind === 'assistant' && row.turnId === event.turnId && row.streaming)
        items = replaceAt(items, i, thoughtUntil({ ...row, streaming: false }, event.at));
    }
    // Retries that gave up: the final error says it instead of the last "Retrying…" line.
    if (event.error) {
      const start = turnStart(items, event.turnId);
      const retries = items.slice(start).filter((row) => row.kind === 'notice' && row.turnId === event.turnId && row.retry);
      for (const row of retries) items = removeRow(items, row.id);
    }
    const stop = STOP_NOTICES[event.stopReason];
    if (stop) items = appendRow(items, { kind: 'notice', id: `${event.turnId}:end`, turnId: event.turnId, ...stop });
    if (event.error)
      items = appendRow(items, {
        kind: 'notice',
        id: `${event.turnId}:end`,
        turnId: event.turnId,
        level: 'error',
        text: event.error.message,
        code: event.error.code,
      });
    return {
      ...state,
      items: items as TranscriptItem[],
      runningTurn: state.runningTurn === event.turnId ? null : state.runningTurn,
      lastError: event.error ?? null,
    };
  },
  'step.note': (state, event) => append(state, { kind: 'notice', id: `note${event.seq}`, turnId: event.turnId, level: 'info', text: event.message }),
  usage: (state, event) => ({ ...state, usage: event.total }),
  error: (state, event) => append(state, { kind: 'notice', id: `err${event.seq}`, level: 'error', text: event.message, code: event.code }),
};

/** A Read result's display records its text once, in the output: the card gets it back here. */
const withText = (display: ToolResultDisplay, output: string): ToolResultDisplay =>
  display.kind === 'file_content' && display.content === undefined ? { ...display, content: fileTextOf(display, output) } : display;

/** Reasoning ends when the answer starts (or the step ends). */
const thoughtUntil = (item: AssistantItem, at: number): AssistantItem =>
  item.thinkingFrom !== undefined && item.thinkingUntil === undefined ? { ...item, thinkingUntil: at } : item;

/** A delta for a step's answer or reasoning: starts the step's message, or adds to it. */
function streamed(state: Transcript, turnId: string, step: number, field: 'text' | 'thinking', text: string, at: number): Transcript {
  const id = assistantId(turnId, step);
  const index = indexFromEnd(state.items, id);
  if (index < 0) {
    const item: AssistantItem = {
      kind: 'assistant',
      id,
      turnId,
      step,
      text: '',
      thinking: '',
      streaming: true,
      at,
      ...(field === 'thinking' ? { thinkingFrom: at } : {}),
    };
    item[field] = text;
    return append(state, item);
  }
  const item = state.items[index] as AssistantItem;
  const next = { ...item, [field]: item[field] + text };
  return { ...state, items: replaceAt(state.items, index, field === 'text' ? thoughtUntil(next, at) : { ...next, thinkingFrom: item.thinkingFrom ?? at }) };
}

/** A quiet hook goes on its call's card; one that ran before the card exists waits for it. */
const quietHooks: Handlers<Transcript> = {
  'hook.ran': (state, event) => {
    const quiet = quietHookOf(event);
    if (!quiet) return state;
    const { callId, hook } = quiet;
    const index = indexFromEnd(state.items, callId);
    const card = index < 0 ? undefined : state.items[index];
    if (card?.kind === 'tool') return { ...state, items: replaceAt(state.items, index, { ...card, hooks: [...(card.hooks ?? []), hook] }) };
    return { ...state, waitingHooks: { ...state.waitingHooks, [callId]: [...(state.waitingHooks[callId] ?? []), hook] } };
  },
  'tool.call.started': (state, event) => {
    const waiting = state.waitingHooks[event.callId];
    if (!waiting) return state;
    const { [event.callId]: _taken, ...rest } = state.waitingHooks;
    return { ...state, waitingHooks: rest, items: replaceRow(state.items, event.callId, (i) => ({ ...(i as ToolItem), hooks: waiting })) };
  },
};

/** Rows other domains add for the events they own (each domain knows only its own kind of row). */
const rowsOf = (table: RowHandlers): Handlers<Transcript> =>
  lift(
    table,
    (state: Transcript): readonly Row[] => state.items,
    // The domains add rows of their own kinds, each a member of TranscriptItem.
    (state, rows) => ({ ...state, items: rows as TranscriptItem[] }),
  );

export const transcriptSlice: SessionSlice<Transcript> = {
  empty: emptyTranscript,
  // A turn's changed files come before its closing notice, so the files' handler runs first.
  on: combine(
    rowsOf(changeRows),
    conversation,
    quietHooks,
    rowsOf(skillRows),
    rowsOf(modeRows),
    rowsOf(historyRows),
    rowsOf(rewindRows),
    rowsOf(hookRows),
    rowsOf(steerRows),
  ),
  seal: (state) => sealRows(state.items),
};

export const useTranscript = create<Transcript>()(() => emptyTranscript);

/**
 * An earlier page of the open session (every event of the turns before the rows shown): its rows go on
 * top, built as a replay would build them. Rows already shown are not added again.
 */
export function prependEarlierPage(events: readonly SessionEvent[]): void {
  if (!events.length) return;
  const page = reduce(transcriptSlice, emptyTranscript, events).items;
  useTranscript.setState((state) => {
    const shown = new Set(state.items.map((i) => i.id));
    return { items: [...page.filter((i) => !shown.has(i.id)), ...state.items] };
  });
}

/**
 * Let go of the rows of all but the last `keep` turns (their prompts and everything before them). Returns
 * the first kept turn's first seq, where the page of the turns before it ends, or null when there are
 * no more than `keep` turns.
 */
export function dropEarlierTurns(keep: number): number | null {
  const { items } = useTranscript.getState();
  let prompts = 0;
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i]!;
    if (item.kind !== 'user' || ++prompts < keep) continue;
    if (i === 0) return null;
    useTranscript.setState({ items: items.slice(i) });
    return item.seq;
  }
  return null;
}

const retryRowId = (turnId: string, step: number) => `${turnId}:retry${step}`;
