import type { ResolvedCall } from '../main/agent/contract/calls';
import type { ToolExecution } from '../main/agent/contract/tool';

/** A call as the permission layer sees it, for tests and benchmarks of decisions (nothing runs). */
export function resolvedCall(name: string, args: unknown = {}, execution: Partial<ToolExecution> = {}): ResolvedCall {
  return {
    callId: 'c1',
    name,
    args,
    turnId: 't1',
    signal: new AbortController().signal,
    execution: { description: name, display: { kind: 'generic', summary: name }, approvalRule: name, execute: async () => ({ output: '' }), ...execution },
  };
}
