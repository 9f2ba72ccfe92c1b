import type { z } from 'zod';
import type { CommandName, CommandOutput, Commands } from '#protocol';

/** The protocol's commands as functions: what the core serves and what capabilities add to it. */
export type CommandHandlers = {
  [K in CommandName]: (input: z.output<Commands[K]['input']>) => Promise<CommandOutput<K>>;
};
