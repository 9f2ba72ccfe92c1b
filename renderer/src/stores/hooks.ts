import { create } from 'zustand';
import type { HookResultKind, HooksOverview, RuleSource, SessionEventOf } from '#protocol';
import { type NoticeItem, type Row, type RowHandlers, appendRow, replaceAt } from './rows';

interface HooksState {
  overview: HooksOverview | null;
  setOverview(overview: HooksOverview): void;
}

/** The hooks in the settings files as the core last reported them (Settings → Hooks, the trust banner). */
export const useHooks = create<HooksState>()((set) => ({
  overview: null,
  setOverview: (overview) => set({ overview }),
}));

const SOURCES: Record<RuleSource, string> = { user: 'your settings', project: 'project settings', local: 'local settings' };

const WHAT: Record<HookResultKind, (tool?: string) => string> = {
  blocked: (tool) => (tool ? `blocked ${tool}` : 'blocked this'),
  denied: (tool) => `refused ${tool ?? 'the call'}`,
  allowed: (tool) => `allowed ${tool ?? 'the call'}`,
  asked: (tool) => `asks before ${tool ?? 'the call'} runs`,
  changed: (tool) => `changed the arguments of ${tool ?? 'the call'}`,
  context: () => 'added context for the model',
  stopped: () => 'stopped the turn',
  output: () => 'said',
  error: () => 'failed',
  timeout: () => 'timed out and was stopped',
};

const LEVEL: Record<HookResultKind, NoticeItem['level']> = {
  blocked: 'warning',
  denied: 'warning',
  allowed: 'info',
  asked: 'info',
  changed: 'info',
  context: 'info',
  stopped: 'warning',
  output: 'info',
  error: 'error',
  timeout: 'error',
};

/** A hook that ran around a tool call and changed nothing: a badge on the call's card, not a row. */
export interface QuietHook {
  id: string;
  text: string;
}

/** Results that leave the call as it was: the same quiet ones the terminal leaves out. */
const QUIET: ReadonlySet<HookResultKind> = new Set<HookResultKind>(['allowed', 'context', 'output']);

type HookRan = SessionEventOf<'hook.ran'>;

const describe = (event: HookRan) =>
  `${event.event} hook “${event.command}” (${SOURCES[event.source]}) ${WHAT[event.result](event.toolName)}${event.message ? `: ${event.message}` : ''}`;

/** The hook's badge line when it changed nothing about a tool call, else null (it gets a row). */
export function quietHookOf(event: HookRan): { callId: string; hook: QuietHook } | null {
  if (!event.callId || !QUIET.has(event.result)) return null;
  return { callId: event.callId, hook: { id: `hook${event.seq}`, text: describe(event) } };
}

/**
 * Hooks of the session's own events (UserPromptSubmit, Stop, SessionStart…) that changed nothing, in a row: one small
 * line ("2 hooks ran") that opens to what each said — not a row of text each.
 */
export interface QuietHooksItem extends Row {
  kind: 'hooks';
  hooks: QuietHook[];
}

/** A compact line in the transcript when a hook blocked, changed or failed: which hook, and what it said. */
export const hookRows: RowHandlers = {
  'hook.ran': (rows, event) => {
    if (quietHookOf(event)) return rows;
    if (!event.callId && QUIET.has(event.result)) {
      const hook = { id: `hook${event.seq}`, text: describe(event) };
      const last = rows.at(-1);
      // Quiet hooks one after another (a prompt's SessionStart and UserPromptSubmit) share one line.
      if (last?.kind === 'hooks' && last.turnId === event.turnId) {
        const line = last as QuietHooksItem;
        return replaceAt<Row>(rows, rows.length - 1, { ...line, hooks: [...line.hooks, hook] } as QuietHooksItem);
      }
      const line: QuietHooksItem = { kind: 'hooks', id: hook.id, ...(event.turnId ? { turnId: event.turnId } : {}), hooks: [hook] };
      return appendRow<Row>(rows, line);
    }
    const notice: NoticeItem = {
      kind: 'notice',
      id: `hook${event.seq}`,
      ...(event.turnId ? { turnId: event.turnId } : {}),
      level: LEVEL[event.result],
      text: describe(event),
    };
    return appendRow<Row>(rows, notice);
  },
};
