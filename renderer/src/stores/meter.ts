import { create } from 'zustand';
import type { ContextBreakdown } from '#protocol';
import type { PricedUsage } from '#protocol/helpers/prices';
import type { SessionSlice } from './session-slice';

/** How full the open session's context is, as last measured. */
export interface ContextFill {
  tokens: number;
  contextWindow: number;
  /** The share of the window at which Deft compacts. */
  compactAt: number;
  /** By source; null right after a compaction (only the total is known then). */
  breakdown: ContextBreakdown | null;
  /** Measured before turns were undone: the context is smaller now, by an unknown amount, until the next call. */
  stale: boolean;
}

/** The open session's context fill and its tokens by model (for cost). */
export interface MeterState {
  context: ContextFill | null;
  /** Tokens per model name ('' for calls recorded before models were named). */
  byModel: Readonly<Record<string, PricedUsage>>;
}

export const meterSlice: SessionSlice<MeterState> = {
  empty: { context: null, byModel: {} },
  on: {
    'context.measured': (state, event) => ({
      ...state,
      context: { tokens: event.tokens, contextWindow: event.contextWindow, compactAt: event.compactAt, breakdown: event.breakdown, stale: false },
    }),
    usage: (state, event) => {
      const key = event.model ?? '';
      const before = state.byModel[key] ?? { inputTokens: 0, outputTokens: 0, cachedTokens: 0 };
      const next: PricedUsage = {
        inputTokens: before.inputTokens + event.step.inputTokens,
        outputTokens: before.outputTokens + event.step.outputTokens,
        cachedTokens: (before.cachedTokens ?? 0) + (event.step.cachedTokens ?? 0),
      };
      return { ...state, byModel: { ...state.byModel, [key]: next } };
    },
    'compaction.ended': (state, event) =>
      event.outcome === 'compacted' && event.tokensAfter !== undefined
        ? {
            ...state,
            context: {
              tokens: event.tokensAfter,
              contextWindow: state.context?.contextWindow ?? 0,
              compactAt: state.context?.compactAt ?? 0.85,
              breakdown: null,
              stale: false,
            },
          }
        : state,
    'compaction.started': (state, event) =>
      state.context
        ? state
        : { ...state, context: { tokens: event.tokensBefore, contextWindow: event.contextWindow, compactAt: 0.85, breakdown: null, stale: false } },
    'turns.undone': (state) => (state.context ? { ...state, context: { ...state.context, stale: true } } : state),
  },
};

export const useMeter = create<MeterState>()(() => meterSlice.empty);
