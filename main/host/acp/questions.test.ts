import type { RequestPermissionOutcome, RequestPermissionRequest } from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import type { Question } from '#protocol';
import { askByPermissions, formAnswers, questionPick, questionRequest, questionsForm } from './questions';

const single: Question = {
  question: 'Which?',
  header: 'Pick',
  multiSelect: false,
  options: [
    { label: 'A', description: 'the first' },
    { label: 'B', description: '' },
  ],
};
const multi: Question = {
  question: 'Which ones?',
  header: '',
  multiSelect: true,
  options: ['A', 'B', 'C'].map((label) => ({ label, description: '' })),
};
const selected = (optionId: string): RequestPermissionOutcome => ({ outcome: 'selected', optionId });

describe('questions as a form (elicitation)', () => {
  it('asks a single-select question as a string to pick and a multi-select one as a list, each with an optional text', () => {
    const form = questionsForm('s', 'call-1', [single, multi]);
    expect(form).toMatchObject({ mode: 'form', sessionId: 's', toolCallId: 'call-1', message: 'Deft asks 2 questions.' });
    const { properties } = (form as { requestedSchema: { properties: Record<string, unknown> } }).requestedSchema;
    expect(properties.q0).toEqual({
      type: 'string',
      title: 'Pick: Which?',
      oneOf: [
        { const: 'A', title: 'A', description: 'the first' },
        { const: 'B', title: 'B' },
      ],
    });
    expect(properties.q1).toMatchObject({ type: 'array', maxItems: 4, items: { anyOf: [{ const: 'A' }, { const: 'B' }, { const: 'C' }] } });
    expect(properties.q1_other).toMatchObject({ type: 'string', maxLength: 10_000 });
  });

  it('takes only what was offered: several choices for a multi-select question, one answer for a single-select one', () => {
    const accept = (content: unknown) => ({ action: 'accept', content });
    expect(formAnswers([single, multi], accept({ q0: 'B', q1: ['A', 'C', 'A'], q1_other: ' also D ' }))).toEqual([
      { question: 'Which?', selected: ['B'] },
      { question: 'Which ones?', selected: ['A', 'C'], other: 'also D' },
    ]);
    // The text written replaces the option of a single-select question.
    expect(formAnswers([single], accept({ q0: 'A', q0_other: 'neither' }))).toEqual([{ question: 'Which?', selected: [], other: 'neither' }]);
    // Declined, cancelled, unanswered, not offered, the wrong shape: dismissed.
    expect(formAnswers([single], { action: 'decline' })).toBeNull();
    expect(formAnswers([single], { action: 'cancel' })).toBeNull();
    expect(formAnswers([single], null)).toBeNull();
    expect(formAnswers([single], accept({}))).toBeNull();
    expect(formAnswers([single], accept({ q0: 'Z' }))).toBeNull();
    expect(formAnswers([single], accept({ q0: ['A'] }))).toBeNull();
    expect(formAnswers([multi], accept({ q0: 'A' }))).toBeNull();
    expect(formAnswers([multi], accept({ q0: ['A'], q0_other: 3 }))).toBeNull();
    expect(formAnswers([single], accept('A'))).toBeNull();
  });
});

describe('questions as permission requests', () => {
  it('answers a single-select question only with one of its options', () => {
    expect(questionPick(single, selected('answer:0'))).toBe('A');
    expect(questionPick(single, selected('answer:7'))).toBeNull();
    expect(questionPick(single, selected('dismiss'))).toBeNull();
    expect(questionPick(single, selected('done'))).toBeNull(); // not offered before a choice
    expect(questionPick(single, { outcome: 'cancelled' })).toBeNull();
    expect(questionRequest('s', 'c', single).options.map((o) => o.name)).toEqual(['A', 'B', 'Dismiss']);
  });

  it('asks a multi-select question again for each further choice, until Done', async () => {
    const asked: RequestPermissionRequest[] = [];
    const answers = ['answer:2', 'answer:2', 'answer:0', 'done'];
    let turn = 0;
    const answer = await askByPermissions(multi, async (make) => {
      asked.push(make('s', 'c'));
      return selected(answers[turn++]!);
    });
    // The second 'answer:2' was not offered any more: a refusal, so the question is dismissed.
    expect(answer).toBeNull();
    expect(asked[1]!.options.map((o) => o.name)).toEqual(['A', 'B', 'Done', 'Dismiss']);
    expect(asked[1]!.toolCall.title).toBe('Which ones? (chosen: C; pick another or Done)');

    turn = 0;
    const picks = ['answer:2', 'answer:0', 'done'];
    expect(await askByPermissions(multi, async () => selected(picks[turn++]!))).toEqual({ question: 'Which ones?', selected: ['C', 'A'] });
    // Every option chosen: no need for Done.
    turn = 0;
    const all = ['answer:0', 'answer:1', 'answer:2'];
    expect(await askByPermissions(multi, async () => selected(all[turn++]!))).toEqual({ question: 'Which ones?', selected: ['A', 'B', 'C'] });
    expect(await askByPermissions(single, async () => selected('answer:1'))).toEqual({ question: 'Which?', selected: ['B'] });
    expect(await askByPermissions(single, async () => null)).toBeNull();
  });
});
