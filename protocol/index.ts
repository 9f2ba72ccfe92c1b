export * from './bridge';
export * from './commands';
export * from './context';
export * from './control';
export * from './display';
export * from './events';
export * from './names';
export * from './session';
export * from './settings';
export * from './skills';
export * from './tasks';

import { eventTypeNames } from './names';

/** Every event type, for building `onX` handlers. */
export const eventTypes: readonly string[] = eventTypeNames;
