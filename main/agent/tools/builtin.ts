import type { Tool, ToolEnv } from './contract';

/** The tools every session gets. Each capability adds its tools here. */
export function builtinTools(_env: ToolEnv): Tool[] {
  return [];
}
