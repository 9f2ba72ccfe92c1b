import type { ToolExecution } from '#contract/tool';

/** The files a call declared it may write, when it declared each one (Write, Edit); undefined when it may write anything. */
export function declaredWrites(execution: ToolExecution): string[] | undefined {
  const accesses = execution.accesses;
  if (!accesses?.length || accesses.some((a) => a.kind !== 'file' || a.recursive)) return undefined;
  return accesses.flatMap((a) => (a.kind === 'file' && a.operation !== 'read' && a.operation !== 'search' ? [a.path] : []));
}

/** Whether a call may change `path` when it runs: it declared writing it, or did not declare what it writes (a command). */
export function mayChange(execution: ToolExecution, path: string): boolean {
  if (execution.readOnly === true) return false;
  const writes = declaredWrites(execution);
  return !writes || writes.includes(path);
}

/** The single files a call declared it reads or writes (not the trees it searches). */
export function namedFiles(execution: ToolExecution): string[] {
  return (execution.accesses ?? []).flatMap((a) => (a.kind === 'file' && !a.recursive && a.operation !== 'search' ? [a.path] : []));
}
