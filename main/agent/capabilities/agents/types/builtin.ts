import coder from './coder.md?raw';
import { type AgentType, parseDefinition } from './definition';
import explore from './explore.md?raw';
import plan from './plan.md?raw';

export type { AgentType } from './definition';

/** The built-in types: definition files like the user's (name, description, tools, then the role), shipped beside this. */
export const BUILTIN_TYPES: readonly AgentType[] = [coder, explore, plan].map((text) => parseDefinition(text, undefined, 'builtin').type);
