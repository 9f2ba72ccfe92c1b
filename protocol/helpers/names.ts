// Plain lists of command, event and hook event names, free of zod so the renderer's web shim stays small.
// protocol.test.ts checks they match the schemas.

/** Every command name, as in `commands`. */
export const commandNames = [
  'getWorkspace',
  'pickWorkspace',
  'listSessions',
  'createSession',
  'openSession',
  'earlierEvents',
  'deleteSession',
  'forkSession',
  'sendPrompt',
  'renameSession',
  'searchSessions',
  'exportSession',
  'setSessionModel',
  'setSessionEffort',
  'cancelTurn',
  'retryNow',
  'getSettings',
  'setSettings',
  'listModels',
  'testConnection',
  'getDataInfo',
  // Skills
  'listSkills',
  'runSkill',
  'readSkillFile',
  'openSkillFolder',
  // Shell and background work
  'listTasks',
  'readTaskOutput',
  'stopTask',
  'clearTasks',
  'deleteCronJob',
  'stopOrBackgroundCommand',
  // Approvals and goals
  'getPermissions',
  'trustWorkspace',
  'setPermissionMode',
  'answerApproval',
  'editPermissionRule',
  'setDefaultMode',
  'listTrustedFolders',
  'forgetFolderTrust',
  'listSessionGrants',
  'revokeSessionGrant',
  'answerQuestion',
  'setPlanMode',
  'setGoalStatus',
  // files: image attachments
  'saveAttachment',
  'attachmentPreview',
  // The web (Settings → Web)
  'getWebSettings',
  'setWebSettings',
  'testWebSearch',
  // files: @-mentions and the file viewer
  'searchFiles',
  'readWorkspaceFile',
  // Context: compaction and undo
  'compactSession',
  'undoTurns',
  // Checkpoints: rewind, review pane, storage, review mode
  'listCheckpoints',
  'previewRewind',
  'rewind',
  'undoRewind',
  'reviewChanges',
  'revertChange',
  'undoRevert',
  'checkpointStorage',
  'setCheckpointLimits',
  'cleanUpCheckpoints',
  'openInEditor',
  'getReviewMode',
  'setReviewMode',
  'answerChangeReview',
  // Memory: instruction files
  'listMemory',
  'setInstructionSettings',
  'addMemoryLine',
  // MCP servers
  'listMcpServers',
  'setMcpServerEnabled',
  'restartMcpServer',
  'decideMcpServer',
  'saveMcpServer',
  'runMcpPrompt',
  // Code intelligence
  'lspStatus',
  'setLspLanguage',
  // The window
  'getPreferences',
  'setPreferences',
  'showNotification',
  // Hooks
  'listHooks',
  'addHook',
  'setHookDisabled',
  'testHook',
  // Sandbox
  'getSandboxSettings',
  'setSandboxSettings',
  // Sub-agents
  'listAgentTypes',
  'getAgentTranscript',
  'stopAgents',
  // Messages typed while a turn runs
  'queuePrompt',
  'editQueuedPrompt',
  'removeQueuedPrompt',
  'sendQueuedPrompt',
  // Worktrees: sessions on their own checkout and branch
  'listWorktrees',
  'worktreesLive',
  'worktreeChanges',
  'createWorktree',
  'openWorktree',
  'mergeWorktree',
  'draftWorktreeMessage',
  'keepWorktreeBranch',
  'handWorktreeConflict',
  'applyWorktree',
  'discardWorktree',
  // Plugins and marketplaces
  'listPlugins',
  'addPluginMarketplace',
  'removePluginMarketplace',
  'installPlugin',
  'setPluginEnabled',
  'updatePlugin',
  'removePlugin',
  // Open remote folder…
  'listRemoteHosts',
  'connectRemoteHost',
  'listRemoteFolder',
  'openRemoteWorkspace',
  'closeRemoteHost',
  'cancelRemoteConnect',
] as const;

/** Every event type, session and app events alike. */
export const eventTypeNames = [
  'session.updated',
  'turn.started',
  'turn.ended',
  'step.started',
  'step.retrying',
  'step.ended',
  'assistant.delta',
  'thinking.delta',
  'step.note',
  'tool.call.started',
  'tool.call.progress',
  'tool.call.result',
  'usage',
  'error',
  'settings.updated',
  'session.deleted',
  // Skills
  'skill.activated',
  'skills.changed',
  // Shell and background work
  'task.started',
  'task.output',
  'task.ended',
  'cron.updated',
  'command.activity',
  // Approvals, the todo list and goals
  'permission.mode.changed',
  'approval.requested',
  'approval.resolved',
  'question.asked',
  'question.answered',
  'plan.mode.changed',
  'todo.updated',
  'goal.updated',
  'permissions.updated',
  'mcp.updated',
  // Context: compaction and undo
  'compaction.started',
  'compaction.ended',
  'turns.undone',
  'turns.redone',
  // Checkpoints
  'turn.changes',
  'rewind.done',
  'rewind.undone',
  'change.review.requested',
  'change.review.resolved',
  'context.measured',
  // The window
  'preferences.updated',
  // Hooks
  'hook.ran',
  'hooks.updated',
  // Sub-agents
  'agent.updated',
  'swarm.updated',
  'agent.event',
  'agents.changed',
  // Messages typed while a turn runs
  'prompt.queued',
  'prompt.queue.edited',
  'prompt.queue.removed',
  'steer.delivered',
  // A remote workspace's connection
  'workspace.connection',
  // What waits in the host's other cores (worktrees)
  'requests.elsewhere',
] as const;

/** The events a hook can run on (the names other agents use), as `HookEventName` takes them. */
export const hookEventNames = [
  'PreToolUse',
  'PostToolUse',
  'UserPromptSubmit',
  'Stop',
  'SubagentStop',
  'PreCompact',
  'SessionStart',
  'SessionEnd',
  'Notification',
] as const;

/** The hook events about one tool call: only these take a tool matcher. */
export const toolHookEventNames: ReadonlySet<string> = new Set<(typeof hookEventNames)[number]>(['PreToolUse', 'PostToolUse']);
