import { type Fact, reminder } from '#contract/facts';
import { localDate } from './system-prompt';

/** The facts the runtime itself keeps the model up to date on: today's date (a session can outlive a day). */
export function coreFacts(now: () => number): () => Fact[] {
  return () => [{ key: 'date', text: reminder(`Today's date: ${localDate(now())}.`) }];
}
