import { agentsCapability } from './capabilities/agents/capability';
import { approvalsCapability } from './capabilities/approvals/capability';
import { checkpointsCapability } from './capabilities/checkpoints/capability';
import { filesCapability } from './capabilities/files/capability';
import { goalsCapability } from './capabilities/goals/capability';
import { hooksCapability } from './capabilities/hooks/capability';
import { lspCapability } from './capabilities/lsp/capability';
import { mcpCapability } from './capabilities/mcp/capability';
import { memoryCapability } from './capabilities/memory/capability';
import { reviewCapability } from './capabilities/review/capability';
import { shellCapability } from './capabilities/shell/capability';
import { skillsCapability } from './capabilities/skills/capability';
import { todoCapability } from './capabilities/todo/capability';
import { webCapability } from './capabilities/web/capability';
import { worktreesCapability } from './capabilities/worktrees/capability';
import { pluginsCapability } from './capabilities/plugins/capability';
import type { CapabilityFactory } from './contract/capability';

/**
 * The capabilities a core gets unless its host chooses otherwise, in the order their hooks run. Only
 * hosts (and tests) import this list: the runtime receives it.
 */
export const defaultCapabilities: readonly CapabilityFactory[] = [
  // Approvals first: permission modes and rules decide on every call; plan mode and questions to the user.
  approvalsCapability,
  todoCapability,
  goalsCapability,
  // The hands: Read, Write, Edit, Grep, Glob, ReadMediaFile, image attachments.
  filesCapability,
  // Shell and background work: Bash, background tasks, scheduled prompts.
  shellCapability(),
  skillsCapability,
  // Instruction files: a subfolder's AGENTS.md/CLAUDE.md on first touch, the Memory view, `#` lines.
  memoryCapability,
  // MCP servers' tools (mcp__server__tool), started once the folder is trusted and each server approved.
  mcpCapability,
  // Code intelligence: language servers (trusted folders only, sandboxed), errors after Write/Edit, the LSP tool.
  lspCapability,
  // The web: FetchURL and WebSearch, never into the user's own network unless they allowed the host.
  webCapability(),
  // Delegation: Agent and AgentSwarm, sub-agent types; sub-agents run under the same rules and approvals.
  agentsCapability,
  // Review mode: Write/Edit proposals accepted or rejected hunk by hunk before they are written.
  reviewCapability,
  // Hooks: the user's commands on the agent's events (settings "hooks"), sandboxed, inert in an untrusted folder.
  hooksCapability,
  // Checkpoints: snapshots of the workspace at every prompt and step, rewind, the review pane.
  checkpointsCapability,
  // Worktrees: the window's commands to list, create, merge, apply and discard Deft's git worktrees.
  worktreesCapability,
  // Plugins: marketplaces, install, enable/disable (their parts are read by skills, agents, hooks and MCP).
  pluginsCapability,
];
