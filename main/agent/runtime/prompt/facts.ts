import type { Fact } from '#contract/facts';
import type { Capability, SessionHandle } from '#contract/capability';
import type { AnnouncedFacts, ModelMessage } from '#contract/model';

/** The facts of one capability (or of the runtime itself), as read before a step. */
export interface FactGroup {
  source: string;
  facts: Fact[];
}

/** Where the facts of a session come from: the capabilities, and the runtime's own. */
export type FactSource = (session: SessionHandle) => Promise<FactGroup[]>;

/** Collect the facts of every capability; one that fails only loses its own facts for this step. */
export function factSource(capabilities: readonly Capability[], own: (session: SessionHandle) => Fact[] = () => []): FactSource {
  return async (session) => {
    const groups: FactGroup[] = [{ source: 'core', facts: own(session) }];
    for (const capability of capabilities) {
      if (!capability.facts) continue;
      try {
        groups.push({ source: capability.name, facts: await capability.facts(session) });
      } catch {
        // A capability that cannot say its facts now says them at a later step.
      }
    }
    return groups;
  };
}

/** What the conversation last told the model under each key (null: that it no longer holds). */
export function announcedFacts(history: readonly ModelMessage[]): Map<string, string | null> {
  const known = new Map<string, string | null>();
  for (const message of history) {
    if (message.role === 'assistant' || !message.announced) continue;
    for (const [key, text] of Object.entries(message.announced)) known.set(key, text);
  }
  return known;
}

/** The facts that differ from what `history` last said, by source; what each says now. */
export function changedFacts(
  groups: readonly FactGroup[],
  history: readonly ModelMessage[],
): Array<{ source: string; key: string; text: string | null; said: string }> {
  const known = announcedFacts(history);
  const out: Array<{ source: string; key: string; text: string | null; said: string }> = [];
  const seen = new Set<string>();
  for (const { source, facts } of groups) {
    for (const fact of facts) {
      if (seen.has(fact.key)) continue;
      seen.add(fact.key);
      const before = known.get(fact.key);
      if (fact.text !== null) {
        if (before !== fact.text) out.push({ source, key: fact.key, text: fact.text, said: fact.text });
      } else if (typeof before === 'string' && fact.gone) {
        // The model was told something that no longer holds: say so once. Without a `gone` text nothing is said.
        out.push({ source, key: fact.key, text: null, said: fact.gone });
      }
    }
  }
  return out;
}

/**
 * One reminder message carrying every fact that changed since the conversation last told the model, in
 * a stable order (capabilities in their order, each one's facts in its order); null when none changed.
 */
export function factReminder(groups: readonly FactGroup[], history: readonly ModelMessage[]): ModelMessage | null {
  const changed = changedFacts(groups, history);
  if (!changed.length) return null;
  const announced: AnnouncedFacts = {};
  for (const fact of changed) announced[fact.key] = fact.text;
  return { role: 'user', content: changed.map((f) => f.said).join('\n'), announced };
}
