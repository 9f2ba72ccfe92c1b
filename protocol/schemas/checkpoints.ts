import { z } from 'zod';
import { diffHunkSchema } from './display';
import { builtOnce } from '../helpers/built-once';

// Checkpoints (snapshots of the workspace at every prompt and every step that changed it), rewinds of code
// and conversation, the review pane (revert a file or a hunk), and review mode (hunks accepted before writing).

/**
 * The checkpoint schemas, built on first use (checkpointSchemas): only the command table and the event schemas
 * validate against them, and a run that validates neither (the CLI's text turn) never builds them.
 */
const buildCheckpointSchemas = () => {
  const DiffHunk = diffHunkSchema();
  /** What a rewind puts back: the files and the conversation, the files only, or the conversation only (/undo). */
  const RewindScope = z.enum(['both', 'code', 'conversation']);

  /** Why checkpoints are not available here (git missing, turned off), or null when they are. */
  const CheckpointsStatus = z.object({
    available: z.boolean(),
    reason: z.string().optional(),
    /** A rewind that was interrupted (a crash, a dropped connection) and was finished when the store opened, in words. */
    recovered: z.string().optional(),
    /** Why changes made by commands are found by scanning the workspace rather than by the file watcher (it could not start, or failed), in words. */
    watch: z.string().optional(),
  });

  /** A file that differs between two states of the workspace; counts are null for binary files. */
  const ChangedFileInfo = z.object({
    path: z.string(),
    status: z.enum(['added', 'deleted', 'modified']),
    added: z.number().int().nullable(),
    removed: z.number().int().nullable(),
  });

  /** A file checkpoints leave out: it holds secrets (never stored), over the size limit, unreadable, a nested repository, or not a file. */
  const SkippedFileInfo = z.object({
    path: z.string(),
    reason: z.enum(['secret', 'too_large', 'unreadable', 'nested_repository', 'special']),
    size: z.number().int().optional(),
  });

  /** One prompt of a session, as the /rewind picker and `deft checkpoints` list it. */
  const PromptCheckpoint = z.object({
    turnId: z.string(),
    /** 1-based among the session's prompts (turns started by the user or a skill); 0 for turns Deft started itself. */
    index: z.number().int(),
    origin: z.string(),
    text: z.string(),
    at: z.number(),
    /** Whether the workspace as it was just before this prompt is stored (code can be rewound here). */
    hasCheckpoint: z.boolean(),
    /** Files that changed from this prompt to the next one (or to now). */
    changedFiles: z.number().int(),
    /** The model still reads this turn (the conversation can be rewound here). */
    inConversation: z.boolean(),
  });

  /** A file a rewind changes: restored to its old content, removed (created since), or brought back (deleted since). */
  const RewindFile = z.object({
    path: z.string(),
    action: z.enum(['restore', 'remove', 'bring_back']),
    /** Changed outside the session's turns since that point (by you or another program, also while a turn ran): restored only when you confirm. */
    outside: z.boolean(),
    /** Of those: made by another Deft session in this folder (kept, as any change outside, unless you confirm). */
    otherSession: z.boolean().optional(),
    binary: z.boolean(),
    added: z.number().int().nullable(),
    removed: z.number().int().nullable(),
    /** The change the rewind makes, from the file now to the file then. */
    hunks: z.array(DiffHunk),
    truncated: z.boolean().optional(),
  });

  /** What a rewind to a prompt would do, before anything happens. */
  const RewindPreview = z.object({
    turnId: z.string(),
    index: z.number().int(),
    text: z.string(),
    at: z.number(),
    scope: RewindScope,
    files: z.array(RewindFile),
    /** Files that differ but cannot be restored (not captured then or now), with the reason. */
    notCaptured: z.array(SkippedFileInfo),
    /** Background tasks still running that may write to the workspace (you may stop them first). */
    runningTasks: z.array(z.object({ id: z.string(), description: z.string() })),
    conversation: z.object({ turns: z.number().int(), possible: z.boolean(), reason: z.string().optional() }),
    /** The workspace state the preview was made against; the rewind refuses to run if it changed since. */
    expect: z.string(),
  });

  /** A file a rewind could not restore, and why. */
  const RestoreProblem = z.object({ path: z.string(), reason: z.string() });

  /** What a rewind did. */
  const RewindResult = z.object({
    rewindId: z.string(),
    scope: RewindScope,
    turnId: z.string(),
    index: z.number().int(),
    restored: z.array(z.string()),
    removed: z.array(z.string()),
    broughtBack: z.array(z.string()),
    /** Changed outside Deft and left as they are (not confirmed). */
    keptOutside: z.array(z.string()),
    problems: z.array(RestoreProblem),
    notCaptured: z.array(SkippedFileInfo),
    undoneTurns: z.array(z.string()),
  });

  /** A changed file in the review pane, with its diff. */
  const ReviewFile = ChangedFileInfo.extend({
    binary: z.boolean(),
    hunks: z.array(DiffHunk),
    truncated: z.boolean().optional(),
    /** The file changed again after this range: reverting restores the old version over those later changes too. */
    changedSince: z.boolean(),
    /** Made by another Deft session in this folder, not by this one: listed as its, never reverted as this session's. */
    otherSession: z.boolean().optional(),
  });

  /** The changes of one turn (or of the whole session up to now) for the review pane. */
  const ReviewChanges = z.object({
    turnId: z.string().optional(),
    files: z.array(ReviewFile),
    /** More files changed than are listed. */
    more: z.number().int(),
  });

  /** Checkpoint storage for this workspace (Settings). */
  const CheckpointStorage = z.object({
    status: CheckpointsStatus,
    path: z.string(),
    bytes: z.number(),
    limitBytes: z.number(),
    maxFileBytes: z.number(),
    checkpoints: z.number().int(),
    sessions: z.number().int(),
    /** Sessions deleted since their checkpoints were taken (their checkpoints go first). */
    deletedSessions: z.number().int(),
  });

  /** A Write or Edit waiting for the user's review, hunk by hunk (review mode). */
  const ChangeReviewRequest = z.object({
    requestId: z.string(),
    turnId: z.string(),
    callId: z.string(),
    toolName: z.string(),
    path: z.string(),
    created: z.boolean(),
    /** Empty when the change cannot be shown as hunks (not text): it is accepted or rejected whole. */
    hunks: z.array(DiffHunk),
    added: z.number().int(),
    removed: z.number().int(),
  });
  return {
    RewindScope,
    CheckpointsStatus,
    ChangedFileInfo,
    SkippedFileInfo,
    PromptCheckpoint,
    RewindFile,
    RewindPreview,
    RestoreProblem,
    RewindResult,
    ReviewFile,
    ReviewChanges,
    CheckpointStorage,
    ChangeReviewRequest,
  };
};
export type CheckpointSchemas = ReturnType<typeof buildCheckpointSchemas>;
export const checkpointSchemas: () => CheckpointSchemas = builtOnce(buildCheckpointSchemas);

// The types of the schemas above (each documented at its schema).
export type RewindScope = z.infer<CheckpointSchemas['RewindScope']>;
export type CheckpointsStatus = z.infer<CheckpointSchemas['CheckpointsStatus']>;
export type ChangedFileInfo = z.infer<CheckpointSchemas['ChangedFileInfo']>;
export type SkippedFileInfo = z.infer<CheckpointSchemas['SkippedFileInfo']>;
export type PromptCheckpoint = z.infer<CheckpointSchemas['PromptCheckpoint']>;
export type RewindFile = z.infer<CheckpointSchemas['RewindFile']>;
export type RewindPreview = z.infer<CheckpointSchemas['RewindPreview']>;
export type RestoreProblem = z.infer<CheckpointSchemas['RestoreProblem']>;
export type RewindResult = z.infer<CheckpointSchemas['RewindResult']>;
export type ReviewFile = z.infer<CheckpointSchemas['ReviewFile']>;
export type ReviewChanges = z.infer<CheckpointSchemas['ReviewChanges']>;
export type CheckpointStorage = z.infer<CheckpointSchemas['CheckpointStorage']>;
export type ChangeReviewRequest = z.infer<CheckpointSchemas['ChangeReviewRequest']>;

/** Shapes of the checkpoint events, shared by events.ts (built with its schema, on first use). */
export const checkpointEventShapes = () => {
  const { RewindScope, ChangedFileInfo, RestoreProblem, RewindResult, ChangeReviewRequest } = checkpointSchemas();
  return {
    /** The files a turn changed, from the checkpoints before and after it (every tool, shell commands included). */
    'turn.changes': { turnId: z.string(), files: z.array(ChangedFileInfo), more: z.number().int() },
    /** A rewind happened (files and/or conversation); it can be undone with undoRewind until the next one. */
    'rewind.done': { result: RewindResult },
    /** The last rewind was undone: files and conversation are as they were before it. */
    'rewind.undone': { rewindId: z.string(), scope: RewindScope, problems: z.array(RestoreProblem) },
    /** A Write or Edit waits for the user's review. */
    'change.review.requested': { request: ChangeReviewRequest },
    /** The review was answered (or the turn was stopped: `cancelled`). */
    'change.review.resolved': { requestId: z.string(), accepted: z.array(z.boolean()), cancelled: z.boolean().optional() },
  } as const;
};

const SessionRef = { sessionId: z.string().min(1) };
const TurnId = z.string().min(1).max(100);
const FilePath = z.string().min(1).max(4096);

/** The checkpoint commands, merged into the command table: built with it, on first use (commandSchemas). */
export function checkpointCommands() {
  const { RewindScope, CheckpointsStatus, PromptCheckpoint, RewindPreview, RestoreProblem, RewindResult, ReviewChanges, CheckpointStorage } =
    checkpointSchemas();
  return {
    /** The session's prompts with what can be rewound to each (the /rewind picker). */
    listCheckpoints: {
      input: z.object(SessionRef).strict(),
      output: z.object({ status: CheckpointsStatus, prompts: z.array(PromptCheckpoint) }),
    },
    /** What rewinding to just before `turnId` would change. */
    previewRewind: {
      input: z.object({ ...SessionRef, turnId: TurnId, scope: RewindScope.default('both') }).strict(),
      output: RewindPreview,
    },
    /** Rewind files and/or conversation to just before `turnId`. Files changed outside Deft are restored only with `includeOutside`. */
    rewind: {
      input: z
        .object({
          ...SessionRef,
          turnId: TurnId,
          scope: RewindScope.default('both'),
          includeOutside: z.boolean().default(false),
          expect: z.string().max(100).optional(),
        })
        .strict(),
      output: RewindResult,
    },
    /** Undo the session's last rewind (files from the checkpoint taken just before it; the conversation if nothing was added since). */
    undoRewind: {
      input: z.object(SessionRef).strict(),
      output: z.object({ rewindId: z.string(), scope: RewindScope, problems: z.array(RestoreProblem) }),
    },
    /** The changes of a turn (or, without `turnId`, of the whole session up to now) with their diffs. */
    reviewChanges: {
      input: z.object({ ...SessionRef, turnId: TurnId.optional() }).strict(),
      output: ReviewChanges,
    },
    /** Revert a file (or one hunk of it) to before the turn (or the session); undoable with undoRevert. */
    revertChange: {
      input: z.object({ ...SessionRef, turnId: TurnId.optional(), path: FilePath, hunk: z.number().int().nonnegative().optional() }).strict(),
      output: z.object({ revertId: z.string(), path: z.string() }),
    },
    /** Put a reverted file back as it was just before the revert. */
    undoRevert: {
      input: z.object({ ...SessionRef, revertId: z.string().min(1).max(200) }).strict(),
      output: z.object({ path: z.string() }),
    },
    /** How much the workspace's checkpoints take, and the limits. */
    checkpointStorage: { input: z.object({}).strict(), output: CheckpointStorage },
    /** Change the limits (bytes): the store's size cap and the largest file captured. */
    setCheckpointLimits: {
      input: z
        .object({
          limitBytes: z
            .number()
            .int()
            .min(64 * 1024 * 1024)
            .max(1024 ** 4)
            .optional(),
          maxFileBytes: z
            .number()
            .int()
            .min(1024)
            .max(1024 ** 3)
            .optional(),
        })
        .strict(),
      output: CheckpointStorage,
    },
    /** Remove the checkpoints of deleted sessions (and the oldest ones while over the cap) and compact the store. */
    cleanUpCheckpoints: { input: z.object({}).strict(), output: CheckpointStorage.extend({ freedBytes: z.number() }) },
    /** Open a workspace file in the user's editor (desktop only); `opened` false elsewhere. */
    openInEditor: { input: z.object({ path: FilePath }).strict(), output: z.object({ opened: z.boolean(), path: z.string() }) },
    /** Whether Write and Edit proposals are reviewed hunk by hunk before they are written (review mode). */
    getReviewMode: { input: z.object({}).strict(), output: z.object({ enabled: z.boolean() }) },
    setReviewMode: { input: z.object({ enabled: z.boolean() }).strict(), output: z.object({ enabled: z.boolean() }) },
    /** Answer a change review: one decision per hunk (one in all when it has none), and optional words for the model. */
    answerChangeReview: {
      input: z
        .object({
          ...SessionRef,
          requestId: z.string().min(1).max(100),
          accepted: z.array(z.boolean()).max(10_000),
          feedback: z.string().max(10_000).optional(),
        })
        .strict(),
      output: z.object({ ok: z.literal(true) }),
    },
  } as const;
}
