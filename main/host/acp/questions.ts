import type {
  CreateElicitationRequest,
  ElicitationPropertySchema,
  PermissionOption,
  RequestPermissionOutcome,
  RequestPermissionRequest,
} from '@agentclientprotocol/sdk';
import { z } from 'zod';
import type { Question, QuestionAnswer } from '#protocol';

// AskUserQuestion in an editor. With the client's form elicitation (`elicitation/create`), all the questions are one
// form: a single-select question a string to pick, a multi-select one a list of choices, each with an optional "Other"
// text. Without it, each question is a permission request whose options are the question's; a multi-select question is
// asked again for each further choice (the choices made left out, *Done* to stop). Whatever the client sends back is
// checked against what was offered: anything else dismisses the questions.

/** Deft takes at most this many choices for one question (QuestionAnswer's `selected`). */
export const MAX_CHOICES = 4;
const MAX_OTHER = 10_000;

const choiceKey = (i: number) => `q${i}`;
const otherKey = (i: number) => `q${i}_other`;

/** The questions as one form elicitation, tied to the tool call that asked them. */
export function questionsForm(sessionId: string, callId: string, questions: readonly Question[]): CreateElicitationRequest {
  const properties: Record<string, ElicitationPropertySchema> = {};
  questions.forEach((question, i) => {
    const title = question.header ? `${question.header}: ${question.question}` : question.question;
    const oneOf = question.options.map((o) => ({ const: o.label, title: o.label, ...(o.description ? { description: o.description } : {}) }));
    properties[choiceKey(i)] = question.multiSelect
      ? { type: 'array', title, description: `Pick up to ${MAX_CHOICES}.`, maxItems: MAX_CHOICES, items: { anyOf: oneOf } }
      : { type: 'string', title, oneOf };
    properties[otherKey(i)] = {
      type: 'string',
      title: 'Other (optional)',
      description: question.multiSelect ? 'Your own answer, besides the choices.' : 'Your own answer, instead of an option.',
      maxLength: MAX_OTHER,
    };
  });
  return {
    mode: 'form',
    sessionId,
    toolCallId: callId,
    message: questions.length === 1 ? 'Deft asks a question.' : `Deft asks ${questions.length} questions.`,
    requestedSchema: { type: 'object', properties },
  };
}

const FormContent = z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.array(z.string())]));

/**
 * The client's answer to the form as Deft's answers, or null (dismissed) when it declined, cancelled, sent something
 * not offered, or left a question unanswered.
 */
export function formAnswers(questions: readonly Question[], response: unknown): QuestionAnswer[] | null {
  if (!response || typeof response !== 'object' || (response as { action?: unknown }).action !== 'accept') return null;
  const content = FormContent.safeParse((response as { content?: unknown }).content ?? {});
  if (!content.success) return null;
  const answers: QuestionAnswer[] = [];
  for (const [i, question] of questions.entries()) {
    const labels = new Set(question.options.map((o) => o.label));
    const picked = content.data[choiceKey(i)];
    const rawOther = content.data[otherKey(i)];
    if (rawOther !== undefined && typeof rawOther !== 'string') return null;
    const other = rawOther?.trim() ?? '';
    if (other.length > MAX_OTHER) return null;
    let selected: string[];
    if (picked === undefined || picked === '') selected = [];
    else if (question.multiSelect && Array.isArray(picked)) selected = [...new Set(picked)];
    else if (!question.multiSelect && typeof picked === 'string') selected = [picked];
    else return null;
    if (selected.some((label) => !labels.has(label)) || selected.length > MAX_CHOICES) return null;
    // A single-select question takes one answer: the text the user wrote, else the option picked.
    if (!question.multiSelect && other) selected = [];
    if (!selected.length && !other) return null;
    answers.push({ question: question.question, selected, ...(other ? { other } : {}) });
  }
  return answers;
}

const DONE = 'done';
const DISMISS = 'dismiss';

/**
 * One question as a permission request: its options to pick from (for a multi-select question, those not `picked`
 * yet, and *Done* once one is), or dismiss.
 */
export function questionRequest(sessionId: string, callId: string, question: Question, picked: readonly string[] = []): RequestPermissionRequest {
  const title = question.header ? `${question.header}: ${question.question}` : question.question;
  const more = question.multiSelect && picked.length ? ` (chosen: ${picked.join(', ')}; pick another or Done)` : '';
  return {
    sessionId,
    toolCall: { toolCallId: callId, title: `${title}${more}`, kind: 'other' },
    options: [
      ...question.options.flatMap((option, i): PermissionOption[] =>
        picked.includes(option.label) ? [] : [{ optionId: `answer:${i}`, name: option.label, kind: 'allow_once' }],
      ),
      ...(picked.length ? [{ optionId: DONE, name: 'Done', kind: 'allow_once' } satisfies PermissionOption] : []),
      { optionId: DISMISS, name: 'Dismiss', kind: 'reject_once' },
    ],
  };
}

/** The client's pick: an option not chosen yet, `done` (only once something is chosen), or null (dismissed, or not offered). */
export function questionPick(question: Question, outcome: RequestPermissionOutcome | null, picked: readonly string[] = []): string | typeof DONE | null {
  if (!outcome || outcome.outcome !== 'selected') return null;
  if (outcome.optionId === DONE) return picked.length ? DONE : null;
  const match = /^answer:(\d+)$/.exec(outcome.optionId);
  const label = match ? question.options[Number(match[1])]?.label : undefined;
  return label !== undefined && !picked.includes(label) ? label : null;
}

/** Asks one question through `ask` (a permission request each time) until it is answered; null when dismissed. */
export async function askByPermissions(
  question: Question,
  ask: (request: (sessionId: string, callId: string) => RequestPermissionRequest) => Promise<RequestPermissionOutcome | null>,
): Promise<QuestionAnswer | null> {
  const picked: string[] = [];
  for (;;) {
    const pick = questionPick(question, await ask((sessionId, callId) => questionRequest(sessionId, callId, question, picked)), picked);
    if (pick === null) return null;
    if (pick !== DONE) picked.push(pick);
    const full = picked.length >= Math.min(MAX_CHOICES, question.options.length);
    if (pick === DONE || !question.multiSelect || full) return { question: question.question, selected: picked };
  }
}
