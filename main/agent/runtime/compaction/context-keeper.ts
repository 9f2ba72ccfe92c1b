import { randomUUID } from 'node:crypto';
import type { CompactionOutcome, CompactionTrigger, ErrorInfo, Reattached } from '#protocol';
import { CommandError } from '#contract/errors';
import type { Capability, SessionHandle } from '#contract/capability';
import { type StateSlot, readSlot } from '#contract/state';
import type { RetryPolicy } from '#infra/providers/retry';
import type { ChatProvider, ModelMessage, ToolSchema } from '#contract/model';
import type { Session } from '#infra/sessions/session';
import { sessionStartHooks } from '../turn/hook-events';
import { type FactSource, changedFacts, factReminder } from '../prompt/facts';
import { renewSystemPrompt } from '../prompt/session-prompt';
import { writeHandoffNote } from './handoff';
import { compactedHistory } from './history';
import { ContextMeter, estimateMessages, estimateTokens } from './tokens';

/** The context window assumed when the provider settings do not give one (`contextWindow`). */
export const DEFAULT_CONTEXT_WINDOW = 128_000;
/** An automatic compaction runs before a step once the context holds this share of the window. */
export const AUTO_COMPACT_RATIO = 0.85;
/** Automatic compactions one turn may run (a window too small for even the compacted history must not loop). */
const MAX_AUTO_PER_TURN = 3;

/** What a compaction needs from the turn (or the command) it serves. */
export interface StepSetup {
  provider: ChatProvider;
  system: () => Promise<string>;
  tools: readonly ToolSchema[];
  contextWindow: number;
  /** The model's name, for the usage it reports (pricing). */
  model?: string;
}

export interface CompactionRequest {
  session: Session;
  handle: SessionHandle;
  setup: StepSetup;
  trigger: CompactionTrigger;
  signal: AbortSignal;
  compactionId?: string;
  turnId?: string;
  instructions?: string;
}

export interface CompactionResult {
  outcome: CompactionOutcome;
  error?: ErrorInfo;
}

export const newCompactionId = (): string => `compact-${randomUUID().slice(0, 8)}`;

/**
 * Keeps what the model reads within its window and in step with undo, for the sessions of one core. A
 * compaction asks the model for a handoff note and replaces what the model reads with the user's recent
 * prompts, the note and what capabilities re-attach; the transcript keeps everything. An undo drops the last
 * turns and lets capabilities restore their state from before them.
 */
export class ContextKeeper {
  private readonly meters = new WeakMap<Session, ContextMeter>();

  constructor(private readonly deps: { capabilities: readonly Capability[]; facts: FactSource; retry: RetryPolicy; random?: () => number }) {}

  /** The context's size as best known: the provider's last count plus estimates, or an estimate. */
  used(session: Session, system: string): number {
    return this.meter(session).used(session.context, system);
  }

  /**
   * Automatic compaction for one turn: called before every step, it compacts once the context reaches
   * AUTO_COMPACT_RATIO of the window and resolves to whether it did.
   */
  autoCompaction(session: Session, handle: SessionHandle, setup: StepSetup, turnId: string, signal: AbortSignal): () => Promise<boolean> {
    let runs = 0;
    let failed = false;
    let compacted: { context: readonly ModelMessage[]; length: number } | null = null;
    const due = async () => {
      if (failed || runs >= MAX_AUTO_PER_TURN || signal.aborted) return false;
      // Nothing new since this turn's last compaction: compacting again would not make it smaller.
      if (compacted && compacted.context === session.context && compacted.length === session.context.length) return false;
      // The system prompt is built only when there is no provider count to go by.
      const used = this.meter(session).measured(session.context) ?? this.used(session, await setup.system());
      return used >= setup.contextWindow * AUTO_COMPACT_RATIO;
    };
    return async () => {
      if (!(await due())) return false;
      runs++;
      const result = await this.compact({ session, handle, setup, trigger: 'auto', signal, turnId });
      if (result.outcome === 'failed') failed = true;
      compacted = { context: session.context, length: session.context.length };
      return result.outcome === 'compacted';
    };
  }

  /** Compact now. Never throws; anything but 'compacted' leaves the history as it was. */
  async compact(request: CompactionRequest): Promise<CompactionResult> {
    const { session, handle, setup, trigger, signal } = request;
    const compactionId = request.compactionId ?? newCompactionId();
    const ids = { compactionId, trigger, ...(request.turnId ? { turnId: request.turnId } : {}) };
    let tokensBefore = 0;
    try {
      const system = await setup.system();
      tokensBefore = this.used(session, system);
      session.emit({
        type: 'compaction.started',
        ...ids,
        tokensBefore,
        contextWindow: setup.contextWindow,
        ...(request.instructions ? { instructions: request.instructions } : {}),
      });
      await handle.hooks.fire(
        { hook_event_name: 'PreCompact', trigger, custom_instructions: request.instructions ?? '' },
        { ...(request.turnId ? { turnId: request.turnId } : {}), signal },
      );
      const before = session.context;
      const written = await writeHandoffNote({
        provider: setup.provider,
        system,
        tools: setup.tools,
        context: before,
        signal,
        retry: this.deps.retry,
        ...(request.instructions ? { instructions: request.instructions } : {}),
        ...(this.deps.random ? { random: this.deps.random } : {}),
      });
      if (written.kind !== 'ok') {
        const error = written.kind === 'failed' ? { error: written.error } : {};
        session.emit({ type: 'compaction.ended', ...ids, outcome: written.kind, tokensBefore, ...error });
        return { outcome: written.kind, ...error };
      }
      // The compaction call costs tokens too: they count in the session's total.
      if (written.usage) session.countUsage(ids.turnId ?? compactionId, written.usage, setup.model);
      const reattach = await this.reattachments(handle);
      const kept = compactedHistory(
        before,
        written.note,
        reattach.flatMap((r) => r.texts),
      );
      // Every fact the model should know is said again after the note (nothing in the new history says it).
      const facts = await this.deps.facts(handle);
      const reminder = factReminder(facts, kept);
      // SessionStart hooks with source "compact" may add context the fresh history starts with.
      const started = await sessionStartHooks(handle, 'compact');
      const history = [...kept, ...(reminder ? [reminder] : []), ...(started ? [started] : [])];
      // The UI lists what was said again by fact (the date is not worth mentioning).
      for (const changed of changedFacts(facts, kept)) if (changed.key !== 'date') reattach.push({ capability: changed.key, texts: [changed.said] });
      session.compactContext(compactionId, history);
      // A compaction starts the cached prefix afresh: the next step writes a new system prompt (git status, AGENTS.md).
      renewSystemPrompt(handle);
      this.meter(session).reset();
      session.emit({
        type: 'compaction.ended',
        ...ids,
        outcome: 'compacted',
        note: written.note,
        tokensBefore,
        tokensAfter: estimateTokens(system) + estimateMessages(history),
        keptMessages: history.filter((m) => m.role === 'user' && m.turnId).length,
        reattached: reattach.filter((r) => r.texts.length).map((r): Reattached => ({ feature: r.capability, count: r.texts.length })),
        ...(written.usage ? { usage: written.usage } : {}),
      });
      await session.flush().catch(() => {});
      return { outcome: 'compacted' };
    } catch (cause) {
      const error: ErrorInfo = {
        code: 'internal',
        message: `Compaction failed: ${(cause as Error)?.message ?? String(cause)}. The conversation is unchanged.`,
      };
      session.emit({ type: 'compaction.ended', ...ids, outcome: 'failed', tokensBefore, error });
      return { outcome: 'failed', error };
    }
  }

  /** Undo the last `count` turns; throws a CommandError saying why when they cannot be undone. */
  async undo(session: Session, handle: SessionHandle, count: number): Promise<string[]> {
    return this.applyUndo(session, handle, session.undoTurns(count));
  }

  /** Undo `turnId` and every turn after it (a rewind of the conversation). */
  async undoFrom(session: Session, handle: SessionHandle, turnId: string): Promise<string[]> {
    return this.applyUndo(session, handle, session.undoFrom(turnId), true);
  }

  /** Put back the turns the last undo removed (an undone rewind); throws a CommandError when the conversation moved on. */
  async redo(session: Session, handle: SessionHandle, turnIds: readonly string[]): Promise<void> {
    const state = session.redoUndo(turnIds);
    if (typeof state === 'string') throw new CommandError('invalid_request', state);
    await this.restoreCapabilities(handle, state);
    this.meter(session).reset();
    session.emit({ type: 'turns.redone', turnIds: [...turnIds] });
    await session.flush();
  }

  private async applyUndo(session: Session, handle: SessionHandle, undone: ReturnType<Session['undoTurns']>, byRewind = false): Promise<string[]> {
    if (typeof undone === 'string') throw new CommandError('invalid_request', undone);
    await this.restoreCapabilities(handle, undone.before);
    this.meter(session).reset();
    session.emit({ type: 'turns.undone', turnIds: undone.turnIds, ...(byRewind ? { byRewind } : {}) });
    await session.flush();
    return undone.turnIds;
  }

  private async restoreCapabilities(handle: SessionHandle, state: ReadonlyMap<string, unknown>): Promise<void> {
    const at = <T>(slot: StateSlot<T>): T => readSlot(slot, state.get(slot.key));
    for (const capability of this.deps.capabilities) {
      try {
        await capability.onUndo?.(handle, at);
      } catch {
        // One capability failing to restore its state must not leave the others half done.
      }
    }
  }

  private meter(session: Session): ContextMeter {
    let meter = this.meters.get(session);
    if (!meter) {
      const created = new ContextMeter();
      session.subscribe((event) => {
        if (event.type === 'usage') created.note(event.step, session.context);
      });
      this.meters.set(session, created);
      meter = created;
    }
    return meter;
  }

  private async reattachments(handle: SessionHandle): Promise<Array<{ capability: string; texts: string[] }>> {
    const out: Array<{ capability: string; texts: string[] }> = [];
    for (const capability of this.deps.capabilities) {
      if (!capability.onCompaction) continue;
      try {
        const texts = (await capability.onCompaction(handle)).filter((t) => t.trim());
        out.push({ capability: capability.name, texts });
      } catch {
        // A capability that cannot say what to keep loses only its own re-attachment.
      }
    }
    return out;
  }
}
