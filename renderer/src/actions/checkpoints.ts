import type { ChangeReviewRequest, CheckpointStorage, PromptCheckpoint, ReviewChanges, RewindPreview, RewindScope } from '#protocol';
import { DeftError } from '#protocol/helpers/bridge';
import { deft } from '../bridge';
import { useSessions } from '../stores/sessions';
import { attempt } from './attempt';

// Checkpoints: rewind, the review pane, storage, review mode. Dialogs show their own errors (they return
// them); one-shot actions go to the banner.

function sessionId(): string {
  const id = useSessions.getState().currentId;
  if (!id) throw new DeftError('invalid_request', 'No session is open.');
  return id;
}

/** A command's result, or its error message for the dialog that asked. */
export async function orError<T>(run: () => Promise<T>): Promise<{ ok: true; value: T } | { ok: false; error: string; code: string }> {
  try {
    return { ok: true, value: await run() };
  } catch (error) {
    const e = DeftError.from(error);
    return { ok: false, error: e.detail, code: e.code };
  }
}

export const listPrompts = () => orError(async (): Promise<PromptCheckpoint[]> => (await deft.listCheckpoints({ sessionId: sessionId() })).prompts);
export const previewRewind = (turnId: string, scope: RewindScope) =>
  orError((): Promise<RewindPreview> => deft.previewRewind({ sessionId: sessionId(), turnId, scope }));
export const rewind = (turnId: string, scope: RewindScope, includeOutside: boolean, expect: string | undefined) =>
  orError(() => deft.rewind({ sessionId: sessionId(), turnId, scope, includeOutside, ...(expect ? { expect } : {}) }));
export const undoRewind = () => attempt(async () => (await deft.undoRewind({ sessionId: sessionId() }), true), false);

export const reviewChanges = (turnId: string | undefined) =>
  orError((): Promise<ReviewChanges> => deft.reviewChanges({ sessionId: sessionId(), ...(turnId ? { turnId } : {}) }));
export const revertChange = (turnId: string | undefined, path: string, hunk?: number) =>
  orError(() => deft.revertChange({ sessionId: sessionId(), path, ...(turnId ? { turnId } : {}), ...(hunk !== undefined ? { hunk } : {}) }));
export const undoRevert = (revertId: string) => orError(() => deft.undoRevert({ sessionId: sessionId(), revertId }));
export const openInEditor = (path: string) => attempt(async () => (await deft.openInEditor({ path })).opened, false);
export const stopTask = (taskId: string) => attempt(async () => (await deft.stopTask({ sessionId: sessionId(), taskId }), true), false);

export const checkpointStorage = () => orError((): Promise<CheckpointStorage> => deft.checkpointStorage({}));
export const setCheckpointLimits = (limits: { limitBytes?: number; maxFileBytes?: number }) => orError(() => deft.setCheckpointLimits(limits));
export const cleanUpCheckpoints = () => orError(() => deft.cleanUpCheckpoints({}));
export const getReviewMode = () => orError(async () => (await deft.getReviewMode({})).enabled);
export const setReviewMode = (enabled: boolean) => orError(async () => (await deft.setReviewMode({ enabled })).enabled);

export const answerChangeReview = (request: ChangeReviewRequest, accepted: boolean[], feedback: string) =>
  attempt(
    async () => (
      await deft.answerChangeReview({
        sessionId: sessionId(),
        requestId: request.requestId,
        accepted,
        ...(feedback.trim() ? { feedback: feedback.trim() } : {}),
      }),
      true
    ),
    false,
  );
