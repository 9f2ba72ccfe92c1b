import { z } from 'zod';
import { SettingsStore } from '../settings/settings-store';
import type { UserFileChoices } from './locations';

const Stored = z.object({ claudeUser: z.boolean().optional(), codexUser: z.boolean().optional() });

/** `"instructions": {"claudeUser", "codexUser"}` in `<home>/settings.json`: read `~/.claude/CLAUDE.md`, `~/.codex/AGENTS.md` too. Off by default. */
export async function readInstructionSettings(home: string): Promise<UserFileChoices> {
  const parsed = Stored.safeParse((await new SettingsStore(home).readRaw()).instructions);
  const stored = parsed.success ? parsed.data : {};
  return { claudeUser: stored.claudeUser ?? false, codexUser: stored.codexUser ?? false };
}

export async function writeInstructionSettings(home: string, patch: Partial<UserFileChoices>): Promise<UserFileChoices> {
  const store = new SettingsStore(home);
  const current = Stored.safeParse((await store.readRaw()).instructions);
  await store.update('instructions', { ...(current.success ? current.data : {}), ...patch });
  return readInstructionSettings(home);
}
