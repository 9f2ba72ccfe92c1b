import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { Markdown } from './Markdown';

describe('code blocks in answers', () => {
  it('show their language and a Copy button that Tab reaches and that copies the code', async () => {
    const writeText = vi.fn(async () => {});
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    render(<Markdown text={'Try:\n\n```ts\nconst rate = 2;\n```\n\n```\nplain\n```\n'} />);
    const blocks = document.querySelectorAll('.code-block');
    expect(blocks).toHaveLength(2);
    expect(within(blocks[0] as HTMLElement).getByText('ts')).toBeTruthy();
    expect(within(blocks[1] as HTMLElement).getByText('text')).toBeTruthy();
    await userEvent.tab();
    const copy = screen.getByRole('button', { name: 'Copy ts code' });
    expect(document.activeElement).toBe(copy);
    await userEvent.keyboard('{Enter}');
    expect(writeText).toHaveBeenCalledWith('const rate = 2;\n');
    expect(await screen.findByRole('button', { name: 'Copied' })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Copy code' })).toBeTruthy();
  });
});

describe('tables in answers', () => {
  it("align each header with its column's cells, as the Markdown asks", () => {
    render(<Markdown text={'| Name | Rate | Note | Plain |\n|:--|--:|:-:|---|\n| a | 1.5 | ok | x |\n'} />);
    const align = (selector: string) => [...document.querySelectorAll<HTMLElement>(selector)].map((cell) => cell.style.textAlign);
    expect(align('th')).toEqual(['left', 'right', 'center', '']);
    expect(align('td')).toEqual(align('th'));
    // A column without an alignment has header and cells start-aligned by markdown.css (browsers centre a bare th): see the screenshots.
  });
});
