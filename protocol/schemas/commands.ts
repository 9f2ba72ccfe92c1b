import { z } from 'zod';
import { commandNames } from '../helpers/names';
import { AgentInfo, AgentTypeSummary, SkippedAgentType } from './agents';
import { sandboxSchemas } from './sandbox';
import { RemoteConnection, remoteCommands } from './remote';
import { checkpointCommands, checkpointSchemas } from './checkpoints';
import { memoryCommands } from './memory';
import { queueCommands } from './queue';
import { worktreeCommands, worktreeSchemas } from './worktrees';
import { pluginCommands } from './plugins';
import { approvalSchemas } from './approvals';
import { sessionEventSchema } from './events';
import { goalSchemas } from './goals';
import { FileSearchResult, MAX_FILE_QUERY, Mention, WorkspaceFileView } from './files';
import { mcpSchemas } from './mcp';
import { builtOnce } from '../helpers/built-once';
import { codeSchemas } from './code';
import { hookSchemas } from './hooks';
import { preferenceSchemas } from './preferences';
import { type ErrorInfo, MAX_ATTACHMENT_BYTES, sessionSchemas } from './session';
import { settingsSchemas } from './settings';
import { skillSchemas } from './skills';
import { taskSchemas } from './tasks';
import { webSchemas } from './web';

function command<I extends z.ZodType, O extends z.ZodType>(input: I, output: O) {
  return { input, output };
}

const Empty = z.object({}).strict();
const SessionRef = z.object({ sessionId: z.string().min(1) }).strict();
const TASK_ID = /^[a-z]+-[0-9a-z]{8}$/;
/** A model name as a user types it: printable, no line breaks. */
const ModelName = z
  .string()
  .trim()
  .min(1)
  .max(300)
  .regex(/^[^\s\p{Cc}][^\p{Cc}]*$/u, 'A model name is one line of printable text.');
const AGENT_ID = /^a[0-9a-z]{8}$/;

/** The workspace a window (or web host, or CLI run) is bound to. Built with the command table. */
const buildWorkspaceInfo = () =>
  z.object({
    path: z.string(),
    name: z.string(),
    home: z.string(),
    host: z.enum(['electron', 'web', 'cli', 'acp']),
    /** Whether shell commands run in the OS sandbox here (absent from older cores). */
    sandbox: sandboxSchemas().SandboxStatus.optional(),
    /** The workspace is on another machine (path is its path there): where, and how the connection is. */
    remote: RemoteConnection.optional(),
  });
export type WorkspaceInfo = z.infer<ReturnType<typeof buildWorkspaceInfo>>;

/**
 * Every command a UI can send, with its input and output schemas. Built on first use (commandSchemas): a run that
 * validates no command (the CLI's text turn) never pays for the ~hundred schemas.
 */
const buildCommands = () => {
  const { ConnectionTest, ProviderProbeInput, ProviderSettingsInput, PublicSettings } = settingsSchemas();
  const { Attachment, DataInfo, EffortSetting, ExportFormat, SessionSearchHit, SessionSummary } = sessionSchemas();
  const { ApprovalAnswer, GrantRevoke, PermissionMode, PermissionRules, PlanState, QuestionAnswer, RuleEdit, SessionGrants, TrustedFolder } = approvalSchemas();
  const { Goal, GoalAction } = goalSchemas();
  const { HookAddInput, HookRef, HookTestResult, HooksOverview } = hookSchemas();
  const { NotificationInput, Preferences, PreferencesInput } = preferenceSchemas();
  const { SkillCatalog, SkillNameInput } = skillSchemas();
  const { CommandActivity, CronJobInfo, TaskInfo } = taskSchemas();
  const { PrivateHostEntry, PublicWebSettings, WebSearchInput, WebSearchResult } = webSchemas();
  const SessionEvent = sessionEventSchema();
  const { RewindResult } = checkpointSchemas();
  const { McpOverview, McpServerName } = mcpSchemas();
  const { LspStatus } = codeSchemas();
  const { SandboxSettingsInput, SandboxSettingsView } = sandboxSchemas();
  const WorkspaceInfo = buildWorkspaceInfo();
  return {
    /** Describe the workspace this window is bound to. */
    getWorkspace: command(Empty, WorkspaceInfo),
    /** Open a native folder picker and open the chosen folder in a new window (Electron only). */
    pickWorkspace: command(Empty, z.object({ path: z.string().nullable() })),
    /** Sessions of this workspace, most recently updated first. */
    listSessions: command(Empty, z.object({ sessions: z.array(SessionSummary) })),
    /** Start an empty session. */
    createSession: command(Empty, z.object({ session: SessionSummary })),
    /**
     * Load a session and return its events after `afterSeq`. `reset` tells the UI to drop what it has and
     * apply `events` from scratch: then (and when `afterSeq` is omitted) `events` is the session's tail, its
     * last TAIL_TURNS turns, `before` the cursor for the page before it (null: the tail is everything), and
     * `earlier` the events before the tail that carry state rather than rows (see PAGED_EVENT_TYPES).
     * `problems` lists unreadable log lines.
     */
    openSession: command(
      SessionRef.extend({ afterSeq: z.number().int().nonnegative().optional() }).strict(),
      z.object({
        session: SessionSummary,
        events: z.array(SessionEvent),
        reset: z.boolean(),
        before: z.number().int().positive().nullable().optional(),
        earlier: z.array(SessionEvent).optional(),
        problems: z.array(z.string()),
      }),
    ),
    /**
     * The page before a cursor (`before` from openSession or from the previous page): every event of the
     * `turns` turns before `beforeSeq`, in order, and the cursor for the page before it (null: none).
     */
    earlierEvents: command(
      SessionRef.extend({ beforeSeq: z.number().int().positive(), turns: z.number().int().min(1).max(200).optional() }).strict(),
      z.object({ events: z.array(SessionEvent), before: z.number().int().positive().nullable() }),
    ),
    /**
     * A new session holding this one's conversation up to the end of prompt `atPrompt` (counted from 1, as
     * listCheckpoints numbers them) or of the turn `turnId`; with neither, all of it (up to the last finished turn
     * while one runs). The original is untouched. `files`: keep the workspace as it is, or restore it from the
     * checkpoints to how it was at that point (undoable with undoRewind on the new session; `restored` says what).
     */
    forkSession: command(
      SessionRef.extend({
        atPrompt: z.number().int().min(1).max(1_000_000).optional(),
        turnId: z.string().min(1).max(100).optional(),
        files: z.enum(['keep', 'restore']).default('keep'),
      }).strict(),
      z.object({ session: SessionSummary, atPrompt: z.number().int(), restored: RewindResult.nullable() }),
    ),
    /** Delete a session and its files. */
    /**
     * Delete a session. A session that was the last one in its Deft worktree takes the worktree with it only when
     * nothing would be lost (no uncommitted changes, no commit its base branch lacks); `worktree` says what was done.
     */
    deleteSession: command(
      SessionRef,
      z.object({
        ok: z.literal(true),
        worktree: worktreeSchemas().ReleasedWorktree.optional(),
        /** The worktrees its isolated sub-agents worked in: removed when nothing would be lost, else kept (with changes). */
        agentWorktrees: z.array(worktreeSchemas().ReleasedWorktree).optional(),
      }),
    ),
    /** Start a turn with this prompt. Fails with code 'busy' while a turn runs (queuePrompt waits for it). */
    sendPrompt: command(
      SessionRef.extend({
        text: z.string().max(1_000_000),
        attachments: z.array(Attachment).max(20).optional(),
        mentions: z.array(Mention).max(50).optional(),
      }).strict(),
      z.object({ turnId: z.string() }),
    ),
    /** Give a session a title of the user's choosing. */
    renameSession: command(
      SessionRef.extend({ title: z.string().trim().min(1, 'The title is empty.').max(200) }).strict(),
      z.object({ session: SessionSummary }),
    ),
    /** Sessions of this workspace whose title or conversation text contains `query` (plain text, any case), newest first. */
    searchSessions: command(
      z.object({ query: z.string().trim().min(1).max(200), limit: z.number().int().min(1).max(100).default(30) }).strict(),
      z.object({ hits: z.array(SessionSearchHit), searched: z.number().int() }),
    ),
    /** A session as a file to save: readable Markdown, or its raw log (JSON Lines). `fileName` is safe to save under. */
    exportSession: command(
      SessionRef.extend({ format: ExportFormat }).strict(),
      z.object({ fileName: z.string(), mimeType: z.string(), content: z.string(), logPath: z.string() }),
    ),
    /** Use another model for this session's next turns (null: the provider's model again). */
    setSessionModel: command(SessionRef.extend({ model: ModelName.nullable() }).strict(), z.object({ session: SessionSummary })),
    /** Ask for this reasoning effort in the session's next turns (null: the settings' default again). */
    setSessionEffort: command(SessionRef.extend({ effort: EffortSetting.nullable() }).strict(), z.object({ session: SessionSummary })),
    /** Stop the running turn (stream and tools). */
    cancelTurn: command(SessionRef, z.object({ cancelled: z.boolean() })),
    /** End the wait before a model call is retried and retry now; false when nothing waits. */
    retryNow: command(SessionRef, z.object({ retried: z.boolean() })),
    /** Current settings (the API key itself is never returned). */
    getSettings: command(Empty, PublicSettings),
    /** Save provider settings. */
    setSettings: command(z.object({ provider: ProviderSettingsInput }).strict(), PublicSettings),
    /** Models offered by a provider (the saved one when `provider` is omitted); the model name may be empty. */
    listModels: command(z.object({ provider: ProviderProbeInput.optional() }).strict(), z.object({ models: z.array(z.string()) })),
    /** Send a tiny request to a provider (not saved) and say whether it answered, or exactly what went wrong. */
    testConnection: command(z.object({ provider: ProviderSettingsInput }).strict(), ConnectionTest),
    /** Where Deft keeps its data, and the disk its sessions use. */
    getDataInfo: command(Empty, DataInfo),

    // Skills
    /** Every skill, the skipped files with reasons, and the roots scanned. `rescan` re-reads settings and every root first. */
    listSkills: command(z.object({ rescan: z.boolean().optional() }).strict(), SkillCatalog),
    /** Load a skill into a session as the user: starts a turn whose prompt is the expanded skill. */
    runSkill: command(SessionRef.extend({ name: SkillNameInput, args: z.string().max(100_000).optional() }).strict(), z.object({ turnId: z.string() })),
    /** The text of a skill's SKILL.md (or flat `.md`) file. */
    readSkillFile: command(z.object({ name: SkillNameInput }).strict(), z.object({ path: z.string(), text: z.string() })),
    /** Open a skill's folder in the system file manager where the host can; `opened` is false otherwise (show `path`). */
    openSkillFolder: command(z.object({ name: SkillNameInput }).strict(), z.object({ path: z.string(), opened: z.boolean() })),
    // Shell and background work (tasks panel, command cards)
    /** Background tasks of a session (newest first), its scheduled prompts, and its quiet foreground commands. */
    listTasks: command(SessionRef, z.object({ tasks: z.array(TaskInfo), cron: z.array(CronJobInfo), commands: z.array(CommandActivity) })),
    /** A slice of a task's full output log (ANSI stripped): the last `length` bytes when `offset` is omitted. */
    readTaskOutput: command(
      SessionRef.extend({
        taskId: z.string().regex(TASK_ID),
        offset: z.number().int().nonnegative().optional(),
        length: z
          .number()
          .int()
          .min(1)
          .max(4 * 1024 * 1024)
          .optional(),
      }).strict(),
      z.object({ text: z.string(), offset: z.number().int(), end: z.number().int(), size: z.number().int(), path: z.string() }),
    ),
    /** Take finished tasks (all of them, or those named) off the tasks panel's list for good; their logs stay, the model still sees them. */
    clearTasks: command(
      SessionRef.extend({ taskIds: z.array(z.string().regex(TASK_ID)).max(1000).optional() }).strict(),
      z.object({ cleared: z.array(z.string()) }),
    ),
    /** Stop a running background task (its whole process tree). */
    stopTask: command(SessionRef.extend({ taskId: z.string().regex(TASK_ID) }).strict(), z.object({ task: TaskInfo })),
    /** Delete a scheduled prompt. */
    deleteCronJob: command(SessionRef.extend({ jobId: z.string().regex(/^[0-9a-f]{8}$/) }).strict(), z.object({ ok: z.literal(true) })),
    /** Stop the foreground command of a running tool call, or move it to the background. */
    stopOrBackgroundCommand: command(
      SessionRef.extend({ callId: z.string().min(1).max(200), action: z.enum(['stop', 'background']) }).strict(),
      z.object({ ok: z.literal(true), taskId: z.string().optional() }),
    ),

    // Approvals (permissions, approval requests, questions, plan mode) and goals.
    /** The permission rules in force (and invalid ones), and the session's mode (the default mode without a session). */
    getPermissions: command(z.object({ sessionId: z.string().min(1).optional() }).strict(), z.object({ mode: PermissionMode, permissions: PermissionRules })),
    /**
     * Trust the workspace: its own settings files may then allow tools and set a wider default mode. The
     * given session, if it follows the default mode, is told when its mode changes.
     */
    trustWorkspace: command(z.object({ sessionId: z.string().min(1).optional() }).strict(), z.object({ permissions: PermissionRules })),
    /** Switch a session's permission mode; the model is told at its next step. */
    setPermissionMode: command(SessionRef.extend({ mode: PermissionMode }).strict(), z.object({ mode: PermissionMode })),
    /** Answer a pending approval request. `warning` says when an "always allow" rule could not be saved. */
    answerApproval: command(
      SessionRef.extend({ requestId: z.string().min(1).max(100), answer: ApprovalAnswer }).strict(),
      z.object({ ok: z.literal(true), warning: z.string().optional() }),
    ),
    /** Add a rule to, or remove one from, one settings file (user, project or local), keeping the rest of the file. */
    editPermissionRule: command(RuleEdit, z.object({ permissions: PermissionRules })),
    /** The default permission mode for new sessions, in ~/.deft/settings.json (null removes it: ask). */
    setDefaultMode: command(z.object({ mode: PermissionMode.nullable() }).strict(), z.object({ mode: PermissionMode, permissions: PermissionRules })),
    /** Folders in ~/.deft/trust.json. */
    listTrustedFolders: command(Empty, z.object({ folders: z.array(TrustedFolder) })),
    /** Forget what ~/.deft/trust.json says about a folder: its trust and the rules approved for it. */
    forgetFolderTrust: command(
      z.object({ path: z.string().min(1).max(4096) }).strict(),
      z.object({ folders: z.array(TrustedFolder), permissions: PermissionRules }),
    ),
    /** What the user allowed for this session only ("Allow for session"): rules and hosts. */
    listSessionGrants: command(SessionRef, SessionGrants),
    /** Take back one grant of this session: the next call it covered asks again. */
    revokeSessionGrant: command(GrantRevoke, SessionGrants),
    /** Answer (or dismiss) the questions the model asked. */
    answerQuestion: command(
      SessionRef.extend({
        requestId: z.string().min(1).max(100),
        answers: z.array(QuestionAnswer).max(4).default([]),
        dismissed: z.boolean().default(false),
      }).strict(),
      z.object({ ok: z.literal(true) }),
    ),
    /** Turn plan mode on or off for a session (the window's toggle and /plan). */
    setPlanMode: command(SessionRef.extend({ active: z.boolean() }).strict(), z.object({ plan: PlanState })),
    /** Pause, resume or cancel the session's goal. */
    setGoalStatus: command(SessionRef.extend({ action: GoalAction }).strict(), z.object({ goal: Goal.nullable() })),
    // files: image attachments (dropped or pasted into the window)
    /** Save an image (base64 `data`) under the session's folder for the next prompt; PNG, JPEG, GIF or WebP. */
    saveAttachment: command(
      SessionRef.extend({
        name: z.string().min(1).max(255),
        data: z
          .string()
          .min(1)
          .max(Math.ceil(MAX_ATTACHMENT_BYTES / 3) * 4),
      }).strict(),
      z.object({ attachment: Attachment }),
    ),
    /** A small preview of an image saved with saveAttachment (for thumbnails). */
    attachmentPreview: command(
      SessionRef.extend({ path: z.string().min(1).max(4096) }).strict(),
      z.object({ dataUrl: z.string(), width: z.number().int(), height: z.number().int() }),
    ),
    // The web (Settings → Web)
    /** The search provider (without its key) and the hosts FetchURL may reach although they are private. */
    getWebSettings: command(Empty, PublicWebSettings),
    /** Save them to ~/.deft/settings.json (`search: null` turns WebSearch off); the key goes to the key store. */
    setWebSettings: command(z.object({ search: WebSearchInput.nullable(), allowPrivateHosts: z.array(PrivateHostEntry).max(200) }).strict(), PublicWebSettings),
    /** Run one search with these provider settings (unsaved; an omitted key uses the stored one), to check them. */
    testWebSearch: command(
      z.object({ search: WebSearchInput, query: z.string().trim().min(1).max(400).default('deft coding agent') }).strict(),
      z.object({ results: z.array(WebSearchResult) }),
    ),
    // files: the @-mention picker and the read-only viewer
    /** Workspace files matching `query` (fuzzy), best first; the index is built in the background and skips ignored and secret files. */
    searchFiles: command(z.object({ query: z.string().max(MAX_FILE_QUERY), limit: z.number().int().min(1).max(200).default(50) }).strict(), FileSearchResult),
    /** A file's text for the read-only viewer (through the path policy: secret files are refused). */
    readWorkspaceFile: command(z.object({ path: z.string().min(1).max(4096) }).strict(), WorkspaceFileView),
    // Context: compaction and undo
    /**
     * Compact the session's context now (/compact): the model writes a handoff note that replaces the history
     * it reads. Returns at once; compaction.* events report progress and cancelTurn stops it.
     */
    compactSession: command(SessionRef.extend({ instructions: z.string().trim().max(10_000).optional() }).strict(), z.object({ compactionId: z.string() })),
    /** Remove the last `count` turns from what the model reads (/undo) and roll back their todo list, plan mode and loaded skills. Files are not restored (rewind restores them). */
    undoTurns: command(SessionRef.extend({ count: z.number().int().min(1).max(100).default(1) }).strict(), z.object({ turnIds: z.array(z.string()) })),
    // Checkpoints: rewind, the review pane, storage, review mode (shapes in checkpoints.ts)
    ...checkpointCommands(),
    // Memory: instruction files (shapes in memory.ts)
    ...memoryCommands(),
    // The prompt queue and steering (shapes in queue.ts)
    ...queueCommands(),
    ...worktreeCommands(),
    // Plugins and marketplaces (shapes in plugins.ts)
    ...pluginCommands(),
    ...remoteCommands(),
    // MCP servers
    /** Every configured MCP server with its status and tools, and the problems of the MCP files. */
    listMcpServers: command(Empty, McpOverview),
    /** Turn a server off or on (kept in ~/.deft/settings.json, by name). */
    setMcpServerEnabled: command(z.object({ name: McpServerName, enabled: z.boolean() }).strict(), McpOverview),
    /** Stop a server and start it again (also retries a failed one). */
    restartMcpServer: command(z.object({ name: McpServerName }).strict(), McpOverview),
    /** Approve or deny one of the workspace's own servers (for its current definition; a changed one asks again). */
    decideMcpServer: command(z.object({ name: McpServerName, approved: z.boolean() }).strict(), McpOverview),
    /** Add or replace a server in the user's ~/.deft/mcp.json (the entry is checked before it is saved). */
    saveMcpServer: command(z.object({ name: McpServerName, definition: z.record(z.string(), z.unknown()) }).strict(), McpOverview),
    /** Run an MCP prompt (`/mcp__server__prompt args`): its arguments in order, the last taking the rest; the prompt it returns starts a turn. */
    runMcpPrompt: command(
      SessionRef.extend({ command: z.string().min(1).max(200), args: z.string().max(100_000).optional() }).strict(),
      z.object({ turnId: z.string() }),
    ),
    // Code intelligence: language servers
    /** The language servers: which may run here, their state and last error, the settings' problems. */
    lspStatus: command(Empty, LspStatus),
    /** Turn one language's server on or off (kept in ~/.deft/settings.json, `lsp.disabledLanguages`). */
    setLspLanguage: command(
      z
        .object({
          language: z
            .string()
            .trim()
            .min(1)
            .max(60)
            .regex(/^[a-z0-9+#._-]+$/, 'A language id, e.g. "python".'),
          enabled: z.boolean(),
        })
        .strict(),
      LspStatus,
    ),
    // The window: preferences (theme, notifications, prices) and desktop notifications
    /** The window preferences (theme, notifications, the price table in force). */
    getPreferences: command(Empty, Preferences),
    /** Change window preferences; every window is told (preferences.updated). */
    setPreferences: command(PreferencesInput, Preferences),
    /** Show a desktop notification through the host (Electron); `shown` is false where the host has none (the page uses the browser's). */
    showNotification: command(NotificationInput, z.object({ shown: z.boolean() })),
    // Hooks
    /** The hooks of the three settings files, where each comes from, and whether it runs (folder trust). */
    listHooks: command(Empty, HooksOverview),
    /** Add a hook to one settings file (a workspace's only once the folder is trusted). */
    addHook: command(HookAddInput, HooksOverview),
    /** Set or clear `"disabled"` on one hook entry: a disabled hook is listed but never runs. */
    setHookDisabled: command(HookRef.extend({ disabled: z.boolean() }).strict(), HooksOverview),
    /**
     * Run one hook now with a sample event of its type, through the hook runner (its sandbox and timeout), in the
     * given session's sandbox; a workspace's hook only once the folder is trusted. Only ever sent by the user's click.
     */
    testHook: command(HookRef.extend({ sessionId: z.string().min(1) }).strict(), HookTestResult),
    // Sandbox
    /** Whether commands run in the OS sandbox here and why not, each settings file's "sandbox" section, and what is in force. */
    getSandboxSettings: command(Empty, SandboxSettingsView),
    /** Change one settings file's "sandbox" section (a workspace's only once the folder is trusted). */
    setSandboxSettings: command(SandboxSettingsInput, SandboxSettingsView),
    // Sub-agents
    /** The sub-agent types the model may delegate to, and the definition files that were skipped (with why). */
    listAgentTypes: command(Empty, z.object({ types: z.array(AgentTypeSummary), skipped: z.array(SkippedAgentType) })),
    /** A sub-agent's card and every event of its own session (its transcript), read from its log when needed. */
    getAgentTranscript: command(
      SessionRef.extend({ agentId: z.string().regex(AGENT_ID) }).strict(),
      z.object({ agent: AgentInfo, events: z.array(SessionEvent) }),
    ),
    /** Stop running sub-agents: one (`agentId`) or a whole swarm (`swarmId`). Finished results are kept. */
    stopAgents: command(
      SessionRef.extend({
        agentId: z.string().regex(AGENT_ID).optional(),
        swarmId: z
          .string()
          .regex(/^swarm-[0-9a-z]{8}$/)
          .optional(),
      }).strict(),
      z.object({ stopped: z.number().int() }),
    ),
  } as const;
};

export type Commands = ReturnType<typeof buildCommands>;

/** The command table (input and output schemas by name), built the first time it is asked for. */
export const commandSchemas: () => Commands = builtOnce(buildCommands);
export type CommandName = keyof Commands;
export type CommandInput<K extends CommandName> = z.input<Commands[K]['input']>;
export type CommandOutput<K extends CommandName> = z.output<Commands[K]['output']>;

/** Reply envelope for every command on every transport. */
export type CommandReply<K extends CommandName = CommandName> = { ok: true; result: CommandOutput<K> } | { ok: false; error: ErrorInfo };

const commandNameSet: ReadonlySet<string> = new Set(commandNames);

export function isCommandName(name: unknown): name is CommandName {
  return typeof name === 'string' && commandNameSet.has(name);
}
