import { create } from 'zustand';
import type { HookResultKind, HooksOverview, RuleSource } from '#protocol';
import { type NoticeItem, type Row, type RowHandlers, appendRow } from './rows';

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

/** A compact line in the transcript when a hook blocked, changed or added something: which hook, and what it said. */
export const hookRows: RowHandlers = {
  'hook.ran': (rows, event) => {
    const notice: NoticeItem = {
      kind: 'notice',
      id: `hook${event.seq}`,
      ...(event.turnId ? { turnId: event.turnId } : {}),
      level: LEVEL[event.result],
      text: `${event.event} hook “${event.command}” (${SOURCES[event.source]}) ${WHAT[event.result](event.toolName)}: ${event.message}`,
    };
    return appendRow<Row>(rows, notice);
  },
};
