import { act, fireEvent, render } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { type AssistantItem, type UserItem, useTranscript } from '../../stores/transcript';
import { usePromptHistory } from './use-prompt-history';

const prompt = (text: string, n: number): UserItem => ({ kind: 'user', id: `u${n}`, turnId: `t${n}`, text, attachments: [], mentions: [], at: n, seq: n });
const answer = (text: string): AssistantItem => ({ kind: 'assistant', id: 'a', turnId: 't2', step: 0, text, thinking: '', streaming: true, at: 3 });

describe("the message box's prompt history", () => {
  it('recalls the latest prompt with ↑, and does not render the box again while an answer streams', () => {
    useTranscript.setState({ items: [prompt('first', 1), prompt('second', 2)] });
    let renders = 0;
    const recalled: string[] = [];
    function Box() {
      renders++;
      const history = usePromptHistory('', (p) => recalled.push(p.text));
      return <textarea aria-label="Message" onKeyDown={(e) => history.onKeyDown(e)} />;
    }
    const view = render(<Box />);
    const before = renders;
    let text = '';
    for (const delta of ['Here ', 'is ', 'the ', 'answer.']) {
      text += delta;
      act(() => useTranscript.setState({ items: [prompt('first', 1), prompt('second', 2), answer(text)] }));
    }
    expect(renders).toBe(before);
    // A prompt sent since the box last rendered is recalled too: the history is read at the key.
    act(() => useTranscript.setState({ items: [...useTranscript.getState().items, prompt('third', 4)] }));
    fireEvent.keyDown(view.getByRole('textbox', { name: 'Message' }), { key: 'ArrowUp' });
    expect(recalled).toEqual(['third']);
  });
});
