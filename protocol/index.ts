export * from './agents';
export * from './approvals';
export * from './bridge';
export * from './checkpoints';
export * from './commands';
export * from './context';
export * from './display';
export * from './file-text';
export * from './events';
export * from './files';
export * from './goals';
export * from './hooks';
export * from './mcp';
export * from './names';
export * from './paging';
export * from './sandbox';
export * from './preferences';
export * from './session';
export * from './settings';
export * from './skills';
export * from './tasks';
export * from './todo';
export * from './web';

import { eventTypeNames } from './names';

/** Every event type, for building `onX` handlers. */
export const eventTypes: readonly string[] = eventTypeNames;
export * from './earlier-state';
