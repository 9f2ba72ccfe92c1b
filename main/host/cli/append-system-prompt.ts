import type { CapabilityFactory } from '#contract/capability';
import { renewSystemPrompt, systemPromptSlot } from '#runtime/prompt/session-prompt';

/**
 * `--append-system-prompt TEXT`: the text as the last section of the system prompt (after every capability's). A
 * resumed session keeps the prompt it rendered (for the provider's cache); when that one lacks the text, it is
 * rendered afresh for this run (one cache miss), so the text always reaches the model.
 */
export function appendToSystemPrompt(text: string): CapabilityFactory {
  return () => ({
    name: 'cli-append-system-prompt',
    systemPrompt: () => text,
    onSessionLoaded: (session) => {
      const kept = session.state(systemPromptSlot).get();
      if (kept && !kept.system.includes(text)) renewSystemPrompt(session);
    },
  });
}
