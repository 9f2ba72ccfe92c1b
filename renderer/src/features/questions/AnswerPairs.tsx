/** The user's answers to the model's questions, as question → answer pairs. */
export function AnswerPairs({ answers, dismissed }: { answers: ReadonlyArray<{ question: string; answer: string }>; dismissed: boolean }) {
  if (dismissed || !answers.length) return <p className="empty-note">You dismissed the questions without answering.</p>;
  return (
    <dl className="answer-pairs">
      {answers.map((a) => (
        <div key={a.question} className="answer-pair">
          <dt>{a.question}</dt>
          <dd>{a.answer}</dd>
        </div>
      ))}
    </dl>
  );
}

/** Answers as older sessions stored them (`{answers: {question: answer}}`), or null when the data is something else. */
export function legacyAnswers(data: unknown): Array<{ question: string; answer: string }> | null {
  const answers = (data as { answers?: unknown } | null)?.answers;
  if (!answers || typeof answers !== 'object' || Array.isArray(answers)) return null;
  const pairs = Object.entries(answers as Record<string, unknown>);
  return pairs.every(([, v]) => typeof v === 'string') ? pairs.map(([question, answer]) => ({ question, answer: answer as string })) : null;
}
