import type { ModelMessage } from '#contract/model';
import type { ToolRegistry } from './registry';
import { SELECT_TOOLS } from './select-tools/select-tools';

const HEADER = '<system-reminder>\nDeferred tools changed.';

/**
 * The deferred tools the model selected, read from the conversation it sees: the names of its select_tools
 * calls. So the selection survives a restart, goes back with an undo and is gone after a compaction.
 */
export function selectedInHistory(history: readonly ModelMessage[]): string[] {
  const names: string[] = [];
  for (const message of history) {
    if (message.role !== 'assistant') continue;
    for (const call of message.toolCalls ?? []) {
      if (call.name !== SELECT_TOOLS) continue;
      try {
        const parsed = JSON.parse(call.arguments) as { names?: unknown };
        if (Array.isArray(parsed.names)) names.push(...parsed.names.filter((n): n is string => typeof n === 'string'));
      } catch {
        // A malformed call selected nothing.
      }
    }
  }
  return names;
}

/** The deferred tools the conversation has announced so far (its reminders, in order). */
export function announcedInHistory(history: readonly ModelMessage[]): Set<string> {
  const announced = new Set<string>();
  for (const message of history) {
    if (message.role !== 'user' || typeof message.content !== 'string' || !message.content.startsWith(HEADER)) continue;
    let section: 'added' | 'removed' | null = null;
    for (const line of message.content.split('\n')) {
      if (line === 'Added:') section = 'added';
      else if (line === 'Removed:') section = 'removed';
      else if (line.startsWith('- ') && section) {
        const name = line.slice(2).split(': ')[0]!.trim();
        if (section === 'added') announced.add(name);
        else announced.delete(name);
      }
    }
  }
  return announced;
}

/**
 * A reminder naming the deferred tools added and removed since the last one the model read (each with
 * its one-line description), or null when nothing changed.
 */
export function deferredToolsReminder(history: readonly ModelMessage[], registry: ToolRegistry): ModelMessage | null {
  const announced = announcedInHistory(history);
  const current = registry.deferredNames();
  const added = current.filter((name) => !announced.has(name));
  const removed = [...announced].filter((name) => !current.includes(name));
  if (!added.length && !removed.length) return null;
  const lines = [
    HEADER,
    `Their schemas are not sent until you load them: call ${SELECT_TOOLS} with the names you need; a loaded tool is callable from your next step.`,
  ];
  if (added.length) {
    lines.push('Added:');
    for (const name of added) lines.push(`- ${name}: ${oneLine(registry.get(name)?.wire.description ?? '')}`);
  }
  if (removed.length) {
    lines.push('Removed:');
    for (const name of removed) lines.push(`- ${name}`);
  }
  lines.push('</system-reminder>');
  return { role: 'user', content: lines.join('\n') };
}

function oneLine(text: string): string {
  const first = text.split('\n').find((l) => l.trim()) ?? '';
  return first.length > 200 ? `${first.slice(0, 199)}…` : first.trim();
}
