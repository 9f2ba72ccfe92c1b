import type { InstructionSettings, MemoryTarget } from '#protocol';
import { deft } from '../bridge';
import { useMemory } from '../stores/memory';
import { useSessions } from '../stores/sessions';
import { useUi } from '../stores/ui';
import { attempt } from './attempt';

/** Read the instruction files in effect for the open session (or a new one) again. */
export async function loadMemory(): Promise<void> {
  const sessionId = useSessions.getState().currentId;
  const overview = await attempt(() => deft.listMemory(sessionId ? { sessionId } : {}));
  if (overview) useMemory.getState().setOverview(overview);
}

/** Turn reading Claude Code's or Codex's user file on or off. */
export async function setInstructionSettings(patch: Partial<InstructionSettings>): Promise<void> {
  if (await attempt(() => deft.setInstructionSettings(patch))) await loadMemory();
}

/** Add a line to the chosen instruction file; resolves to the file's name, or null when it failed (the banner says why). */
export async function addMemoryLine(target: MemoryTarget, text: string): Promise<string | null> {
  const added = await attempt(() => deft.addMemoryLine({ target, text }));
  if (!added) return null;
  await loadMemory();
  return added.display;
}

/** `/memory`: Settings on the Memory page. */
export function openMemory(): void {
  useUi.getState().openSettings(true, 'memory');
}
