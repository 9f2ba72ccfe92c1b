import { z } from 'zod';
import { sessionSchemas } from './session';

// Context: compaction (the model's handoff note replaces the history it reads) and undo of turns.

/** What started a compaction: the context filling up before a step, or the user (/compact). */
export const CompactionTrigger = z.enum(['auto', 'manual']);
export type CompactionTrigger = z.infer<typeof CompactionTrigger>;

/** How a compaction ended; anything but 'compacted' leaves the history untouched. */
export const CompactionOutcome = z.enum(['compacted', 'failed', 'cancelled']);
export type CompactionOutcome = z.infer<typeof CompactionOutcome>;

/** Messages a feature re-attached after the handoff note (e.g. `skills` ×2, `todo` ×1). */
export const Reattached = z.object({ feature: z.string(), count: z.number().int() });
export type Reattached = z.infer<typeof Reattached>;

/** Tokens in the context by source (estimated, scaled to the measured total). */
export const ContextBreakdown = z.object({
  system: z.number().int().nonnegative(),
  tools: z.number().int().nonnegative(),
  conversation: z.number().int().nonnegative(),
  toolResults: z.number().int().nonnegative(),
  /** The instruction files (AGENTS.md, CLAUDE.md, their imports), counted apart from the system prompt and conversation that hold them. */
  instructions: z.number().int().nonnegative().optional(),
});
export type ContextBreakdown = z.infer<typeof ContextBreakdown>;

/** Shapes of the context events, shared by events.ts (built with its schema, on first use). */
export const contextEventShapes = () => {
  const { ErrorInfo, Usage } = sessionSchemas();
  return {
    /** A compaction began; `tokensBefore` is the context's size as last measured, against `contextWindow`. */
    'compaction.started': {
      compactionId: z.string(),
      trigger: CompactionTrigger,
      turnId: z.string().optional(),
      tokensBefore: z.number().int(),
      contextWindow: z.number().int(),
      instructions: z.string().optional(),
    },
    /** A compaction ended. When compacted, `note` is the handoff note and the other fields say what the model now reads. */
    'compaction.ended': {
      compactionId: z.string(),
      trigger: CompactionTrigger,
      turnId: z.string().optional(),
      outcome: CompactionOutcome,
      error: ErrorInfo.optional(),
      note: z.string().optional(),
      tokensBefore: z.number().int(),
      tokensAfter: z.number().int().optional(),
      /** Recent user messages kept verbatim. */
      keptMessages: z.number().int().optional(),
      reattached: z.array(Reattached).optional(),
      /** Tokens the compaction call itself used. */
      usage: Usage.optional(),
    },
    /**
     * How full the context is after a model call: `tokens` (the provider's count where it gave one) against
     * `contextWindow`, compaction starting at `compactAt` of it, and an estimate of what fills it by source.
     */
    'context.measured': {
      turnId: z.string(),
      tokens: z.number().int().nonnegative(),
      contextWindow: z.number().int().positive(),
      compactAt: z.number().positive().max(1),
      breakdown: ContextBreakdown,
    },
    /**
     * These turns (oldest first) were removed from what the model reads; their todo list, plan mode and loaded skills
     * were rolled back. Files were not: a rewind restores them separately, and `byRewind` marks the undo as part of one
     * (its `rewind.done` tells the whole story, so no notice of its own).
     */
    'turns.undone': { turnIds: z.array(z.string()).min(1), byRewind: z.boolean().optional() },
    /** Turns an undo removed are back in what the model reads (an undone rewind), with their todo list, plan mode and skills. */
    'turns.redone': { turnIds: z.array(z.string()).min(1) },
  } as const;
};
