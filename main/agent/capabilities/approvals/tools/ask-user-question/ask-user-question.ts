import { z } from 'zod';
import type { Question } from '#protocol';
import type { SessionHandle } from '#contract/capability';
import type { ApprovalDesk } from '../../requests';
import { ToolInputError, access, defineTool } from '#contract/tool';
import description from './ask-user-question.md?raw';
import { toolInput, type SchemaOf } from '#contract/tool-input';

const option = () =>
  z
    .object({
      label: z.string().trim().min(1).max(80).describe('What the user clicks: 1–5 words.'),
      description: z.string().max(500).default('').describe('What choosing it means, when the label alone is unclear.'),
    })
    .strict();

const Input = toolInput('AskUserQuestion', () =>
  z
    .object({
      questions: z
        .array(
          z
            .object({
              question: z.string().trim().min(1).max(1_000).describe('The full question, ending with "?".'),
              header: z.string().max(40).default('').describe('A very short topic label shown above the question (at most 12 characters), e.g. "Database".'),
              options: z.array(option()).min(2).max(4),
              multi_select: z.boolean().default(false).describe('Whether the user may pick several options.'),
            })
            .strict(),
        )
        .min(1)
        .max(4),
    })
    .strict(),
);

/** Uniqueness rules that the JSON Schema cannot express; the message tells the model what to fix. */
export function checkQuestions(questions: z.output<SchemaOf<typeof Input>>['questions']): Question[] {
  const texts = new Set<string>();
  return questions.map((q) => {
    if (texts.has(q.question)) throw new ToolInputError(`Each question must be different; "${q.question}" appears twice.`);
    texts.add(q.question);
    const labels = new Set<string>();
    for (const option of q.options) {
      const key = option.label.toLowerCase();
      if (key === 'other') throw new ToolInputError(`Do not offer an "Other" option (question "${q.question}"): the user can always write their own answer.`);
      if (labels.has(key)) throw new ToolInputError(`Option labels must be unique within a question; "${option.label}" appears twice in "${q.question}".`);
      labels.add(key);
    }
    return {
      question: q.question,
      header: q.header.trim(),
      options: q.options.map((o) => ({ label: o.label, description: o.description })),
      multiSelect: q.multi_select,
    };
  });
}

export function askUserQuestionTool(session: SessionHandle, desk: ApprovalDesk) {
  return defineTool({
    name: 'AskUserQuestion',
    // A conversation with the user (it waits for their answer inside the call), which sub-agents cannot have.
    policy: { approval: 'self', mainAgentOnly: true },
    description,
    input: Input,
    resolveExecution: (args) => {
      const questions = checkQuestions(args.questions);
      const first = questions[0]!.question;
      return {
        accesses: access.none(),
        description: questions.length === 1 ? first : `${questions.length} questions`,
        display: {
          kind: 'generic',
          summary: questions.length === 1 ? first : `${questions.length} questions for the user`,
          detail: questions.map((q) => `• ${q.question}`).join('\n'),
        },
        approvalRule: 'AskUserQuestion',
        execute: async (ctx) => {
          const { id, answer } = await desk.questions.open(session.id, { turnId: ctx.turnId, callId: ctx.callId, questions }, ctx.signal, (requestId) => {
            void session.hooks.fire({
              hook_event_name: 'Notification',
              notification_type: 'question',
              message: `Deft has a question for you: ${questions[0]?.question ?? ''}`,
            });
            session.emit({ type: 'question.asked', turnId: ctx.turnId, requestId, callId: ctx.callId, questions });
          });
          if (answer === 'cancelled') {
            session.emit({ type: 'question.answered', requestId: id, answers: {}, dismissed: true });
            return { output: 'The user stopped the turn before answering the questions.', isError: true };
          }
          const answers = answer.dismissed ? {} : answer.answers;
          session.emit({ type: 'question.answered', requestId: id, answers, dismissed: answer.dismissed });
          if (answer.dismissed) {
            return {
              output: JSON.stringify({
                answers: {},
                note: 'The user dismissed the questions without answering. Continue with your best judgement or ask in plain text; do not ask the same questions again right away.',
              }),
              display: { kind: 'question_answers', answers: [], dismissed: true },
            };
          }
          const pairs = questions.map((q) => ({ question: q.question, answer: answers[q.question] ?? '' }));
          return { output: JSON.stringify({ answers }), display: { kind: 'question_answers', answers: pairs, dismissed: false } };
        },
      };
    },
  });
}
