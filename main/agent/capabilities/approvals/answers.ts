import type { Question, QuestionAnswer } from '#protocol';

/**
 * Turn the UI's answers into `{question: answer}`: every question answered, labels that exist, one
 * choice for a single-select question, and the "Other" text where the user wrote one. Throws a message
 * for the user otherwise.
 */
export function collectAnswers(questions: readonly Question[], given: readonly QuestionAnswer[]): Record<string, string> {
  const byText = new Map(given.map((a) => [a.question, a]));
  for (const answer of given) {
    if (!questions.some((q) => q.question === answer.question)) throw new Error(`"${answer.question}" is not one of the questions asked.`);
  }
  const out: Record<string, string> = {};
  for (const q of questions) {
    const answer = byText.get(q.question);
    const other = answer?.other?.trim() ?? '';
    const selected = [...new Set(answer?.selected ?? [])];
    if (!selected.length && !other) throw new Error(`Answer "${q.question}": pick an option or write your own answer (or dismiss the questions).`);
    for (const label of selected) {
      if (!q.options.some((o) => o.label === label)) throw new Error(`"${label}" is not an option of "${q.question}".`);
    }
    if (!q.multiSelect && selected.length + (other ? 1 : 0) > 1) throw new Error(`"${q.question}" takes one answer: pick one option or write your own.`);
    out[q.question] = [...selected, ...(other ? [other] : [])].join(', ');
  }
  return out;
}
