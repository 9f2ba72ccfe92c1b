import { afterEach, describe, expect, it } from 'vitest';
import type { Question, SessionEvent } from '#protocol';
import { createHarness } from '#test-support/harness';
import { waitFor } from '#test-support/wait';
import { collectAnswers } from './answers';
import { webHost } from '../../../host/hosts';

type Harness = Awaited<ReturnType<typeof createHarness>>;
let h: Harness;
afterEach(async () => {
  await h?.dispose();
});

type Asked = Extract<SessionEvent, { type: 'question.asked' }>;
const ask = (questions: unknown) => ({
  chunks: [{ toolCall: { name: 'AskUserQuestion', args: JSON.stringify({ questions }) } }, { finish: 'tool_calls' as const }],
});
const lastTool = (hh: Harness) =>
  String(
    hh.server.requests
      .at(-1)!
      .body.messages.filter((m) => m.role === 'tool')
      .at(-1)!.content,
  );

const db = { question: 'Which database?', header: 'Database', options: [{ label: 'Postgres', description: 'Relational' }, { label: 'SQLite' }] };
const extras = { question: 'Which extras?', options: [{ label: 'Docker' }, { label: 'CI' }, { label: 'Docs' }], multi_select: true };

describe('AskUserQuestion validation', () => {
  async function rejected(questions: unknown): Promise<string> {
    h.server.enqueue(ask(questions));
    await h.run('ask');
    return lastTool(h);
  }

  it('checks counts, uniqueness and the reserved "Other"', async () => {
    h = await createHarness({ host: webHost });
    expect(await rejected([])).toContain('questions');
    expect(await rejected([{ question: 'Q?', options: [{ label: 'only one' }] }])).toContain('options');
    expect(await rejected([db, db, db, db, db])).toContain('questions');
    expect(await rejected([{ question: 'Q?', options: [1, 2, 3, 4, 5].map((n) => ({ label: `o${n}` })) }])).toContain('options');
    expect(await rejected([db, { ...db, header: 'Again' }])).toContain('Each question must be different; "Which database?" appears twice.');
    expect(await rejected([{ question: 'Q?', options: [{ label: 'A' }, { label: 'a' }] }])).toContain('Option labels must be unique');
    expect(await rejected([{ question: 'Q?', options: [{ label: 'A' }, { label: 'Other' }] }])).toContain('Do not offer an "Other" option');
    expect(h.sessionEvents('question.asked')).toHaveLength(0);
  });

  it('checks the answers the window sends', () => {
    const questions: Question[] = [
      {
        question: 'Which database?',
        header: '',
        options: [
          { label: 'Postgres', description: '' },
          { label: 'SQLite', description: '' },
        ],
        multiSelect: false,
      },
      {
        question: 'Which extras?',
        header: '',
        options: [
          { label: 'Docker', description: '' },
          { label: 'CI', description: '' },
        ],
        multiSelect: true,
      },
    ];
    expect(
      collectAnswers(questions, [
        { question: 'Which database?', selected: ['SQLite'] },
        { question: 'Which extras?', selected: ['Docker', 'CI'], other: 'Nix' },
      ]),
    ).toEqual({
      'Which database?': 'SQLite',
      'Which extras?': 'Docker, CI, Nix',
    });
    expect(
      collectAnswers(questions, [
        { question: 'Which database?', selected: [], other: 'MySQL' },
        { question: 'Which extras?', selected: ['CI'] },
      ]),
    ).toEqual({
      'Which database?': 'MySQL',
      'Which extras?': 'CI',
    });
    expect(() => collectAnswers(questions, [{ question: 'Which database?', selected: ['SQLite'] }])).toThrow('Answer "Which extras?"');
    expect(() =>
      collectAnswers(questions, [
        { question: 'Which database?', selected: ['SQLite', 'Postgres'] },
        { question: 'Which extras?', selected: ['CI'] },
      ]),
    ).toThrow('takes one answer');
    expect(() =>
      collectAnswers(questions, [
        { question: 'Which database?', selected: ['Oracle'] },
        { question: 'Which extras?', selected: ['CI'] },
      ]),
    ).toThrow('not an option');
    expect(() => collectAnswers(questions, [{ question: 'Who?', selected: [] }])).toThrow('not one of the questions');
  });
});

describe('AskUserQuestion in the window', () => {
  it('asks, waits, and returns the answers as JSON', async () => {
    h = await createHarness({ host: webHost });
    h.server.enqueue(ask([db, extras]));
    await h.core.handlers.sendPrompt({ sessionId: h.session.id, text: 'set up' });
    const asked = await waitFor(() => h.sessionEvents('question.asked')[0] as Asked | undefined);
    expect(asked.questions).toEqual([
      {
        question: 'Which database?',
        header: 'Database',
        options: [
          { label: 'Postgres', description: 'Relational' },
          { label: 'SQLite', description: '' },
        ],
        multiSelect: false,
      },
      {
        question: 'Which extras?',
        header: '',
        options: [
          { label: 'Docker', description: '' },
          { label: 'CI', description: '' },
          { label: 'Docs', description: '' },
        ],
        multiSelect: true,
      },
    ]);
    await expect(
      h.core.handlers.answerQuestion({
        sessionId: h.session.id,
        requestId: asked.requestId,
        answers: [{ question: 'Which database?', selected: ['Postgres'] }],
        dismissed: false,
      }),
    ).rejects.toMatchObject({ code: 'invalid_request' });
    await h.core.handlers.answerQuestion({
      sessionId: h.session.id,
      requestId: asked.requestId,
      answers: [
        { question: 'Which database?', selected: [], other: 'DuckDB' },
        { question: 'Which extras?', selected: ['Docker', 'Docs'] },
      ],
      dismissed: false,
    });
    await h.core.turnDone(h.session.id);
    expect(JSON.parse(lastTool(h))).toEqual({ answers: { 'Which database?': 'DuckDB', 'Which extras?': 'Docker, Docs' } });
    expect(h.sessionEvents('question.answered')).toMatchObject([{ requestId: asked.requestId, dismissed: false }]);
    // The window shows question → answer pairs, in the order asked.
    expect(h.sessionEvents('tool.call.result').at(-1)).toMatchObject({
      display: {
        kind: 'question_answers',
        dismissed: false,
        answers: [
          { question: 'Which database?', answer: 'DuckDB' },
          { question: 'Which extras?', answer: 'Docker, Docs' },
        ],
      },
    });
  });

  it('reports a dismissal to the model', async () => {
    h = await createHarness({ host: webHost });
    h.server.enqueue(ask([db]));
    await h.core.handlers.sendPrompt({ sessionId: h.session.id, text: 'set up' });
    const asked = await waitFor(() => h.sessionEvents('question.asked')[0] as Asked | undefined);
    await h.core.handlers.answerQuestion({ sessionId: h.session.id, requestId: asked.requestId, answers: [], dismissed: true });
    await h.core.turnDone(h.session.id);
    const result = JSON.parse(lastTool(h)) as { answers: object; note: string };
    expect(result.answers).toEqual({});
    expect(result.note).toContain('dismissed');
  });

  it('is not offered headless', async () => {
    h = await createHarness();
    h.server.enqueue({ chunks: [{ text: 'hi' }, { finish: 'stop' }] });
    await h.run('hello');
    expect(h.server.requests[0]!.body.tools!.map((t) => t.function.name)).not.toContain('AskUserQuestion');
  });
});
