import { z } from 'zod';
import { builtOnce } from '../helpers/built-once';
import { diffHunkSchema } from './display';

// Deft's git worktrees (issue 30): a session on its own checkout and branch, merged, applied or discarded later.

/**
 * The worktree schemas, built the first time one is used (worktreeSchemas()): importing this module builds none, so a
 * cold `deft run`, which never looks at a worktree, does not pay for them (about 4 ms of CPU, issue 36).
 */
function buildWorktreeSchemas() {
  const DiffHunk = diffHunkSchema();
  const Name = z.string().min(1).max(64);

  /** What a session in a worktree is doing now (from its mark, in whichever Deft process runs it): working, waiting for the user, or neither. */
  const WorktreeLive = z.enum(['running', 'waiting', 'idle']);

  /** One worktree Deft made for the repository, with its state. */
  const WorktreeInfo = z.object({
    name: z.string(),
    branch: z.string(),
    /** The branch it was made from and merges back onto (null: made from a commit, it can only be applied). */
    baseBranch: z.string().nullable(),
    /** The commit it was made from. */
    baseCommit: z.string(),
    /** The main checkout of the repository. */
    repoRoot: z.string(),
    /** The worktree's folder. */
    path: z.string(),
    createdAt: z.number(),
    state: z.enum(['ok', 'missing']),
    changedFiles: z.array(z.string()),
    ahead: z.number().int(),
    behind: z.number().int(),
    dirty: z.boolean(),
    sessions: z.array(z.object({ id: z.string(), title: z.string(), updatedAt: z.number(), live: WorktreeLive })),
    /** Its sessions together: waiting when one waits for the user, else running when one runs, else idle. */
    live: WorktreeLive,
    /**
     * The session (id) a handed-over conflict waits for in the worktree's mailbox: posted, and not taken yet by any
     * Deft (no window has the worktree open). Opening the worktree, or `deft worktrees resolve NAME`, starts it.
     */
    conflictWaiting: z.string().optional(),
  });

  /** What became of a worktree when the session it belonged to was deleted (removed, or kept and why). */
  const ReleasedWorktree = z.object({
    name: z.string(),
    branch: z.string(),
    /** Its folder (kept: where the changes are). */
    path: z.string().optional(),
    removed: z.boolean(),
    reason: z.string(),
  });

  const WorktreeMergeOutcome = z.discriminatedUnion('status', [
    z.object({ status: z.literal('merged'), commit: z.string(), baseBranch: z.string(), files: z.array(z.string()), squashed: z.boolean() }),
    z.object({ status: z.literal('nothing'), baseBranch: z.string() }),
    /** The merge would conflict in these files: nothing was changed. */
    z.object({ status: z.literal('conflict'), baseBranch: z.string(), files: z.array(z.string()) }),
    /** The checkout of the base branch has uncommitted changes in these files, which the merge changes: nothing was changed. */
    z.object({ status: z.literal('dirty'), baseBranch: z.string(), checkout: z.string(), files: z.array(z.string()) }),
  ]);

  const WorktreeApplyOutcome = z.discriminatedUnion('status', [
    z.object({ status: z.literal('applied'), files: z.array(z.string()) }),
    z.object({ status: z.literal('nothing') }),
    z.object({ status: z.literal('conflict'), files: z.array(z.string()), message: z.string() }),
    z.object({ status: z.literal('dirty'), files: z.array(z.string()) }),
  ]);

  /** One file a worktree changed against its base, with its hunks (none for a binary file; `truncated`: cut to fit). */
  const WorktreeFileChange = z.object({
    path: z.string(),
    status: z.enum(['added', 'deleted', 'modified']),
    added: z.number().int().nullable(),
    removed: z.number().int().nullable(),
    binary: z.boolean(),
    hunks: z.array(DiffHunk),
    truncated: z.boolean().optional(),
  });

  /** A commit or tree id (hex). */
  const ObjectId = z.string().regex(/^[0-9a-f]{40}(?:[0-9a-f]{24})?$/);

  const WorktreeChanges = z.object({
    /** The commit the diff starts from: where its branch and its base branch meet. */
    base: z.string(),
    /** What the diff shows: its branch's commit then, and the tree of its files then (committed or not). */
    head: z.string(),
    tree: z.string(),
    files: z.array(WorktreeFileChange),
    /** More files changed than are listed. */
    more: z.number().int(),
  });

  /** What a worktree's sessions are doing now, without its git figures (the sidebar's cheap poll). */
  const WorktreeLiveInfo = WorktreeInfo.pick({ name: true, sessions: true, live: true, conflictWaiting: true });

  /**
   * A worktree's name as a page names it to switch to its core (the web host's `?worktree=` on the socket): the name
   * rules of infra/worktrees/names.ts — never a path; the host finds the folder in Deft's records.
   */
  const WorktreeViewName = z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/)
    .refine((name) => !name.includes('..') && !name.endsWith('.lock') && !name.endsWith('.'), 'not a worktree name');

  /**
   * The web host's first message on a socket: which core this page is served — the main checkout's (`worktree: null`)
   * or a worktree's, by name; `refused`: the worktree asked for could not be served (why), so this is the main checkout.
   */
  const HostView = z
    .object({
      worktree: z
        .object({ name: WorktreeViewName, branch: z.string().max(300) })
        .strict()
        .nullable(),
      refused: z.string().max(2_000).optional(),
    })
    .strict();

  /**
   * A request that waits for the user in ANOTHER core of the same host than the one a page is served (the web host
   * keeps one per worktree beside the main checkout's): an approval, a plan review, a question or a change review.
   * `worktree`: the worktree's name and branch, or null for the main checkout.
   */
  const ElsewhereRequest = z
    .object({
      worktree: z
        .object({ name: WorktreeViewName, branch: z.string().max(300) })
        .strict()
        .nullable(),
      sessionId: z.string().min(1).max(200),
      /** The session's title, as its core last said (cut). */
      title: z.string().max(300),
      requestId: z.string().min(1).max(200),
      kind: z.enum(['approval', 'plan', 'question', 'review']),
      /** What it asks, in one line (cut): the tool and its description, the first question, the file to review. */
      summary: z.string().max(500),
      at: z.number(),
    })
    .strict();

  return {
    Name,
    ObjectId,
    WorktreeLive,
    WorktreeInfo,
    ReleasedWorktree,
    WorktreeMergeOutcome,
    WorktreeApplyOutcome,
    WorktreeFileChange,
    WorktreeChanges,
    WorktreeLiveInfo,
    WorktreeViewName,
    HostView,
    ElsewhereRequest,
  };
}

export const worktreeSchemas: () => ReturnType<typeof buildWorktreeSchemas> = builtOnce(buildWorktreeSchemas);
type Schemas = ReturnType<typeof buildWorktreeSchemas>;
export type WorktreeLive = z.infer<Schemas['WorktreeLive']>;
export type WorktreeInfo = z.infer<Schemas['WorktreeInfo']>;
export type ReleasedWorktree = z.infer<Schemas['ReleasedWorktree']>;
export type WorktreeMergeOutcome = z.infer<Schemas['WorktreeMergeOutcome']>;
export type WorktreeApplyOutcome = z.infer<Schemas['WorktreeApplyOutcome']>;
export type WorktreeFileChange = z.infer<Schemas['WorktreeFileChange']>;
export type WorktreeChanges = z.infer<Schemas['WorktreeChanges']>;
export type WorktreeLiveInfo = z.infer<Schemas['WorktreeLiveInfo']>;
export type HostView = z.infer<Schemas['HostView']>;
export type ElsewhereRequest = z.infer<Schemas['ElsewhereRequest']>;

/** At most this many are listed to a page (the oldest first); the count says how many wait in all. */
export const ELSEWHERE_LIMIT = 50;

/** Commands merged into the command table: built with it, on first use (commandSchemas). */
export function worktreeCommands() {
  const { Name, ObjectId, WorktreeInfo, WorktreeLive, WorktreeLiveInfo, WorktreeChanges, WorktreeMergeOutcome, WorktreeApplyOutcome } = worktreeSchemas();
  return {
    /** The worktrees Deft made for the workspace's repository (none outside a repository: `reason` says why). */
    listWorktrees: {
      input: z.object({}).strict(),
      output: z.object({ repoRoot: z.string().nullable(), reason: z.string().optional(), worktrees: z.array(WorktreeInfo) }),
    },
    /** Only what the worktrees' sessions are doing now (their running marks): no git is run. Empty outside a repository. */
    worktreesLive: {
      input: z.object({}).strict(),
      /** `main`: the main checkout's sessions together (waiting, running or idle), for a window that shows a worktree. */
      output: z.object({
        worktrees: z.array(WorktreeLiveInfo),
        main: WorktreeLive.optional(),
        /** With `main`: the main checkout's sessions that run or wait now, one by one (waiting first, at most 20). */
        mainSessions: z
          .array(z.object({ id: z.string(), title: z.string().max(300), live: WorktreeLive }))
          .max(20)
          .optional(),
      }),
    },
    /** A worktree's diff against its base (what a merge would bring, committed or not), file by file: its *Changes* view. */
    worktreeChanges: { input: z.object({ name: Name }).strict(), output: WorktreeChanges },
    /** A new worktree on the branch deft/<name> from HEAD (or `base`), with the `worktree.copy` files; open its `path` to run sessions there. */
    createWorktree: {
      input: z.object({ name: Name.optional(), base: z.string().min(1).max(200).optional() }).strict(),
      output: z.object({
        worktree: WorktreeInfo,
        copied: z.array(z.string()),
        skipped: z.array(z.object({ path: z.string(), reason: z.string() })),
        notes: z.array(z.string()),
      }),
    },
    /**
     * Open a worktree's folder in a window of its own (the desktop app), or in this window beside the main checkout (the
     * web host: `here`), where sessions run in it; the folder is a new one for trust. `opened: false` where the host
     * cannot (the CLI, a remote folder): `path` says where it is.
     */
    openWorktree: {
      input: z.object({ name: Name }).strict(),
      /** `here`: the host runs the worktree's own core beside this one and shows it in this window, switched to by name (the web host). */
      output: z.object({ opened: z.boolean(), path: z.string(), here: z.boolean().optional() }),
    },
    /** Merge (or squash) a worktree's branch onto its base branch; its uncommitted changes are committed on its branch first. */
    mergeWorktree: {
      input: z
        .object({
          name: Name,
          squash: z.boolean().optional(),
          message: z.string().max(10_000).optional(),
          /**
           * The state the user saw (the Changes view's `head` and `tree`): the merge is refused, nothing changed, when
           * the worktree's branch or files moved since — so what is merged is what was shown.
           */
          expect: z.object({ head: ObjectId, tree: ObjectId }).strict().optional(),
        })
        .strict(),
      output: WorktreeMergeOutcome,
    },
    /**
     * A merge's commit message drafted by the configured model from the worktree's diff against its base (cut to a
     * bounded size); `drafted: false` is the default message, and `note` says why (no model, a failure, too slow).
     */
    draftWorktreeMessage: {
      input: z.object({ name: Name, squash: z.boolean().optional() }).strict(),
      output: z.object({ message: z.string(), drafted: z.boolean(), note: z.string().optional() }),
    },
    /**
     * Create branch only: commit the worktree's uncommitted changes on its branch (with `message`), remove the worktree,
     * and keep the branch for the user. Refused while a session runs there.
     */
    keepWorktreeBranch: {
      input: z.object({ name: Name, message: z.string().max(10_000).optional() }).strict(),
      output: z.object({ branch: z.string(), committed: z.boolean(), removed: z.string() }),
    },
    /**
     * Hand a merge conflict to the worktree's session: its uncommitted changes are committed on its branch, then its base
     * branch is merged INTO its branch inside the worktree (the markers live there, never in the main checkout). `prompt`
     * tells the agent which files conflict and what to do; `clean`: the base merged in without a conflict.
     */
    handWorktreeConflict: {
      input: z.object({ name: Name }).strict(),
      output: z.object({
        status: z.enum(['conflict', 'clean']),
        files: z.array(z.string()),
        prompt: z.string(),
        path: z.string(),
        branch: z.string(),
        baseBranch: z.string(),
        /**
         * The worktree's session the prompt was sent to (its newest; one made when it had none): the core that has the
         * worktree open takes it as that session's next prompt — started when it is idle, queued behind a running turn.
         * Absent: it could not be sent; give `prompt` to a session there yourself.
         */
        sent: z.object({ sessionId: z.string(), title: z.string(), created: z.boolean() }).optional(),
      }),
    },
    /** A worktree's changes as uncommitted changes in the main checkout (all or nothing). */
    applyWorktree: { input: z.object({ name: Name }).strict(), output: WorktreeApplyOutcome },
    /** Remove a worktree (its uncommitted changes with it) and, with `deleteBranch`, its branch. */
    discardWorktree: {
      input: z.object({ name: Name, deleteBranch: z.boolean().optional() }).strict(),
      output: z.object({ removed: z.string(), branchDeleted: z.boolean() }),
    },
  };
}
