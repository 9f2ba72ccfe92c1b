import type { ResolvedCall } from '../main/agent/contract/calls';
import type { ShellExecution, ToolExecution, ToolPolicy } from '../main/agent/contract/tool';

/** The policies tools declare, for calls built by hand (each real tool declares its own in its folder). */
export const policies = {
  rules: { approval: 'rules', mainAgentOnly: false },
  edit: { approval: 'edit', mainAgentOnly: false },
  self: { approval: 'self', mainAgentOnly: false },
  goalStart: { approval: 'goal-start', mainAgentOnly: true },
} as const satisfies Record<string, ToolPolicy>;

/** A call as the permission layer sees it, for tests and benchmarks of decisions (nothing runs). */
export function resolvedCall(name: string, args: unknown = {}, execution: Partial<ToolExecution> = {}, policy: ToolPolicy = policies.rules): ResolvedCall {
  return {
    callId: 'c1',
    name,
    args,
    turnId: 't1',
    signal: new AbortController().signal,
    policy,
    execution: { description: name, display: { kind: 'generic', summary: name }, approvalRule: name, execute: async () => ({ output: '' }), ...execution },
  };
}

/** A shell command call as the shell tool (Bash) resolves it: `cwd` (default: the workspace) is where it runs. */
export function shellCall(command: string, shell: { cwd: string; sandboxed?: boolean }, execution: Partial<ToolExecution> = {}): ResolvedCall {
  const resolved: ShellExecution = { command, cwd: shell.cwd, sandboxed: shell.sandboxed ?? false };
  return resolvedCall('Bash', { command }, { approvalRule: `Bash(${command})`, shell: resolved, ...execution });
}
