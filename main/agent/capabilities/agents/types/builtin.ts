import type { AgentTypeSummary } from '../../../../../protocol';
import coder from './coder.md?raw';
import explore from './explore.md?raw';
import plan from './plan.md?raw';
import { BUILTIN_TOOLS } from './tool-names';

/** A sub-agent type: what the catalog lists and the runner needs. */
export interface AgentType extends AgentTypeSummary {
  /** Its role, the last section of its system prompt. */
  prompt: string;
}

export const BUILTIN_TYPES: readonly AgentType[] = [
  { name: 'coder', description: 'General software work: reads, searches, edits and writes files, runs commands.', source: 'builtin', tools: [...BUILTIN_TOOLS.coder!], prompt: coder },
  { name: 'explore', description: 'Investigates the code base and answers questions about it; changes nothing.', source: 'builtin', tools: [...BUILTIN_TOOLS.explore!], prompt: explore },
  { name: 'plan', description: 'Reads the code and designs an implementation plan; no shell, changes nothing.', source: 'builtin', tools: [...BUILTIN_TOOLS.plan!], prompt: plan },
];
