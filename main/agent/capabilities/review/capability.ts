import { z } from 'zod';
import type { ChangeReviewRequest } from '#protocol';
import { CommandError } from '#contract/errors';
import type { CapabilityFactory, SessionHandle } from '#contract/capability';
import type { ChangeReviewer, ChangeVerdict } from '#contract/review';
import { isWithin } from '#infra/policies/path-guard';
import { PendingRequests } from '#infra/platform/pending-requests';
import { SettingsStore } from '#infra/settings/settings-store';

const Stored = z.object({ edits: z.boolean().optional() });

/**
 * Review mode (a setting, off by default): Write and Edit proposals inside the workspace are shown to the
 * user as hunks before anything is written; the user accepts or rejects each, and the file tools write
 * only the accepted ones and tell the model exactly what was applied.
 */
export const reviewCapability: CapabilityFactory = (core) => {
  const settings = new SettingsStore(core.home);
  const pending = new PendingRequests<ChangeReviewRequest, ChangeVerdict>('review');
  let enabled: boolean | null = null;
  const load = async () => {
    const parsed = Stored.safeParse((await settings.readRaw()).review);
    enabled = parsed.success ? parsed.data.edits === true : false;
    return enabled;
  };
  void load();

  const reviewer = (session: SessionHandle): ChangeReviewer => ({
    // Headless (`deft run`) nobody could answer, so nothing is held for review there.
    reviews: (path) => enabled === true && core.host.canAsk && isWithin(path, core.workspace),
    review: async (proposal) => {
      const { signal, ...shown } = proposal;
      const request: Omit<ChangeReviewRequest, 'requestId'> = shown;
      const { id, answer } = await pending.open(session.id, { ...request, requestId: '' }, signal, (requestId) =>
        session.emit({ type: 'change.review.requested', request: { ...request, requestId } }),
      );
      if (answer === 'cancelled') {
        session.emit({ type: 'change.review.resolved', requestId: id, accepted: [], cancelled: true });
        throw new Error('The review was cancelled.');
      }
      session.emit({ type: 'change.review.resolved', requestId: id, accepted: answer.accepted });
      return answer;
    },
  });

  return {
    name: 'review',
    changeReviewer: reviewer,
    waitingFor: (sessionId) => pending.list(sessionId).map(({ id, request }) => ({ id, turnId: request.turnId })),
    commands: {
      getReviewMode: async () => ({ enabled: await load() }),
      setReviewMode: async ({ enabled: on }) => {
        await settings.update('review', { edits: on });
        return { enabled: await load() };
      },
      answerChangeReview: async ({ sessionId, requestId, accepted, feedback }) => {
        const request = pending.get(sessionId, requestId);
        if (!request) throw new CommandError('not_found', 'That review is no longer waiting (it was answered, or its turn was stopped).');
        const wanted = Math.max(1, request.hunks.length);
        if (accepted.length !== wanted) throw new CommandError('invalid_request', `Give one decision per hunk: ${wanted} expected, ${accepted.length} given.`);
        pending.settle(sessionId, requestId, { accepted, ...(feedback?.trim() ? { feedback: feedback.trim() } : {}) });
        return { ok: true as const };
      },
    },
    close: async () => pending.cancelAll(),
  };
};
