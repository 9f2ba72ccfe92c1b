import type { ToolResult } from '#contract/tool';
import type { AgentOutcome } from './runner';

/** The Agent tool's result for a sub-agent that ran in the foreground (or was resumed). */
export function foregroundResult(agentId: string, type: string, outcome: AgentOutcome, worktree: readonly string[] = []): ToolResult {
  const head = [`agent_id: ${agentId}`, `actual_subagent_type: ${type}`, `status: ${outcome.status}`, ...worktree];
  const display = { kind: 'agent_summary' as const, agentName: type, ...(outcome.text ? { result: outcome.text } : {}) };
  if (outcome.status === 'completed') return { output: [...head, '', '[summary]', outcome.text || '(the sub-agent gave no final answer)'].join('\n'), display };
  const lines = [...head];
  if (outcome.error) lines.push(`subagent error: ${outcome.error.message}`);
  if (outcome.status === 'cancelled') lines.push('The sub-agent was stopped before it finished.');
  if (outcome.text) lines.push('', '[partial answer]', outcome.text);
  if (outcome.status === 'timed_out')
    lines.push('', `resume_hint: it keeps what it did so far; call Agent with resume: "${agentId}" and a prompt saying what to finish.`);
  return { output: lines.join('\n'), isError: true, display };
}

/** What the model reads when it starts a sub-agent in the background. */
export function backgroundStarted(taskId: string, agentId: string, type: string): string {
  return [
    `task_id: ${taskId}`,
    `agent_id: ${agentId}`,
    `actual_subagent_type: ${type}`,
    'status: running in the background',
    '',
    'You will be notified when it finishes, with its final answer: do not poll it with TaskOutput and do not sleep to wait for it. Carry on with other work.',
    `resume_hint: task_id (${taskId}) is for TaskOutput and TaskStop; to continue the sub-agent once it has finished, call Agent with resume: "${agentId}" (the agent_id).`,
  ].join('\n');
}
