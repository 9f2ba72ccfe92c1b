import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { SessionHandle } from '#contract/capability';
import { stateSlot } from '#contract/state';
import type { ToolSchema } from '#contract/model';

/**
 * The system prompt a session's requests start with, kept in the session log with a digest of the tools
 * it was written for. Providers cache the prompt prefix, so it is rendered only when there is none yet,
 * after a compaction (which starts the prefix afresh anyway), or when the tool set changes (an MCP
 * server joins, a deferred tool is selected, the model's capabilities change) — never between steps.
 */
const PromptRecord = z.object({ system: z.string(), tools: z.string() });
export const systemPromptSlot = stateSlot('prompt.system', PromptRecord.nullable(), null);

/** A short digest of what the model is sent as `tools`. */
export function toolsDigest(tools: readonly ToolSchema[]): string {
  return createHash('sha256').update(JSON.stringify(tools)).digest('hex').slice(0, 16);
}

/** The session's system prompt for these tools: the kept one, or a fresh one (then kept). */
export async function sessionSystemPrompt(session: SessionHandle, tools: readonly ToolSchema[], render: () => Promise<string>): Promise<string> {
  const digest = toolsDigest(tools);
  const kept = session.state(systemPromptSlot).get();
  if (kept && kept.tools === digest) return kept.system;
  const system = await render();
  session.state(systemPromptSlot).set({ system, tools: digest });
  return system;
}

/** Let the next step render the system prompt afresh (after a compaction). */
export function renewSystemPrompt(session: SessionHandle): void {
  if (session.state(systemPromptSlot).get() !== null) session.state(systemPromptSlot).set(null);
}
