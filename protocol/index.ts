// The protocol between the core and every UI, written once. Two halves:
// - schemas/: the zod schemas of every command and event (main validates every message against them);
// - helpers/: zod-free code the renderer may import as values (the bridge builder, names, limits, units,
//   paging, file text, prices, terminal text, the earlier-state compaction). A lint rule keeps them zod-free.
// The renderer imports this index (and schemas/) for types only.

export * from './schemas/agents';
export * from './schemas/approvals';
export * from './schemas/checkpoints';
export * from './schemas/code';
export * from './schemas/commands';
export * from './schemas/context';
export * from './schemas/display';
export * from './schemas/events';
export * from './schemas/files';
export * from './schemas/goals';
export * from './schemas/hooks';
export * from './schemas/mcp';
export * from './schemas/memory';
export * from './schemas/preferences';
export * from './schemas/queue';
export * from './schemas/sandbox';
export * from './schemas/remote';
export * from './schemas/session';
export * from './schemas/settings';
export * from './schemas/skills';
export * from './schemas/tasks';
export * from './schemas/todo';
export * from './schemas/web';
export * from './schemas/worktrees';
export * from './schemas/plugins';

export * from './helpers/bridge';
export * from './helpers/earlier-state';
export * from './helpers/file-text';
export * from './helpers/names';
export * from './helpers/paging';
export * from './helpers/slash';

import { eventTypeNames } from './helpers/names';

/** Every event type, for building `onX` handlers. */
export const eventTypes: readonly string[] = eventTypeNames;
