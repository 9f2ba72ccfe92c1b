import { agentsFeature } from './capabilities/agents/feature';
import { approvalsFeature } from './capabilities/approvals/feature';
import { checkpointsFeature } from './capabilities/checkpoints/feature';
import { filesFeature } from './capabilities/files/feature';
import { goalsFeature } from './capabilities/goals/feature';
import { hooksFeature } from './capabilities/hooks/feature';
import { lspFeature } from './capabilities/lsp/feature';
import { mcpFeature } from './capabilities/mcp/feature';
import { memoryFeature } from './capabilities/memory/feature';
import { reviewFeature } from './capabilities/review/feature';
import { shellFeature } from './capabilities/shell/feature';
import { skillsFeature } from './capabilities/skills/feature';
import { todoFeature } from './capabilities/todo/feature';
import { webFeature } from './capabilities/web/feature';
import type { FeatureFactory } from './contract/feature';

/**
 * The capabilities a core gets unless its host chooses otherwise, in the order their hooks run. Only
 * hosts (and tests) import this list: the runtime receives it.
 */
export const defaultCapabilities: readonly FeatureFactory[] = [
  // Approvals first: permission modes and rules decide on every call; plan mode and questions to the user.
  approvalsFeature,
  todoFeature,
  goalsFeature,
  // The hands: Read, Write, Edit, Grep, Glob, ReadMediaFile, image attachments.
  filesFeature,
  // Shell and background work: Bash, background tasks, scheduled prompts.
  shellFeature(),
  skillsFeature,
  // Instruction files: a subfolder's AGENTS.md/CLAUDE.md on first touch, the Memory view, `#` lines.
  memoryFeature,
  // MCP servers' tools (mcp__server__tool), started once the folder is trusted and each server approved.
  mcpFeature,
  // Code intelligence: language servers (trusted folders only, sandboxed), errors after Write/Edit, the LSP tool.
  lspFeature,
  // The web: FetchURL and WebSearch, never into the user's own network unless they allowed the host.
  webFeature(),
  // Delegation: Agent and AgentSwarm, sub-agent types; sub-agents run under the same rules and approvals.
  agentsFeature,
  // Review mode: Write/Edit proposals accepted or rejected hunk by hunk before they are written.
  reviewFeature,
  // Hooks: the user's commands on the agent's events (settings "hooks"), sandboxed, inert in an untrusted folder.
  hooksFeature,
  // Checkpoints: snapshots of the workspace at every prompt and step, rewind, the review pane.
  checkpointsFeature,
];
