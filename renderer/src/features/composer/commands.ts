import { setSessionModel } from '../../actions/sessions';
import { rewindCommand } from '../checkpoints/rewind-command';
import { contextCommand } from '../context/context-command';
import { memoryCommand } from '../memory/memory-command';
import { planCommand } from '../plan/plan-command';
import { openModelMenu } from './ModelChip';

/** A command of the composer itself, listed in the slash menu before the skills. */
export interface BuiltinCommand {
  command: string;
  argumentHint?: string;
  description: string;
}

/** The composer's own commands, in the slash menu's order. Adding one is an entry here and a case in `composerCommand`. */
export const BUILTIN_COMMANDS: readonly BuiltinCommand[] = [
  { command: 'plan', argumentHint: '[request]', description: 'Plan mode: alone it switches it on or off; with a request, Deft plans that first' },
  { command: 'compact', argumentHint: '[what to keep]', description: 'Summarise the conversation to free context' },
  { command: 'undo', argumentHint: '[n]', description: 'Take back the last turn (or n); files are not restored' },
  { command: 'rewind', description: 'Put files and/or the conversation back to just before a prompt' },
  { command: 'changes', description: 'Review every file this session changed' },
  { command: 'model', argumentHint: '[name]', description: "Switch the model for this session's next turns" },
  { command: 'memory', description: 'The instruction files the model reads (AGENTS.md, CLAUDE.md); # at the start of a message adds a line' },
];

/** `/model` opens the model chip's list; `/model <name>` switches to that model. */
function modelCommand(text: string): { run: (running: boolean) => Promise<boolean> } | null {
  const match = /^\/model(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (!match) return null;
  const name = match[1]?.trim() ?? '';
  return {
    run: async () => {
      if (!name) {
        openModelMenu();
        return true;
      }
      return setSessionModel(name);
    },
  };
}

/** The composer's own commands win over skills of the same name. */
export const composerCommand = (text: string) => planCommand(text) ?? contextCommand(text) ?? rewindCommand(text) ?? modelCommand(text) ?? memoryCommand(text);
