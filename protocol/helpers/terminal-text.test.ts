import { describe, expect, it } from 'vitest';
import { AnsiStripper, collapseCarriageReturns, stripAnsi, terminalText } from './terminal-text';

describe('terminal text', () => {
  it('strips colour, cursor and title sequences but keeps tabs and newlines', () => {
    expect(stripAnsi('\x1b[1;31merror\x1b[0m:\tfile\n')).toBe('error:\tfile\n');
    expect(stripAnsi('\x1b]0;title\x07done \x1b[2K\x1b[1Gok')).toBe('done ok');
    expect(stripAnsi('a\x1b(Bb\x1b=c\x00\x07d')).toBe('abcd');
  });

  it('holds back an escape sequence split across chunks', () => {
    const s = new AnsiStripper();
    expect(s.push('red: \x1b[3')).toBe('red: ');
    expect(s.push('1mX\x1b[0')).toBe('X');
    expect(s.push('m end')).toBe(' end');
    expect(s.push('\x1b')).toBe('');
    expect(s.flush()).toBe('');
  });

  it('applies carriage returns like a terminal', () => {
    expect(collapseCarriageReturns('10%\r50%\r100%\ndone')).toBe('100%\ndone');
    expect(collapseCarriageReturns('abcdef\rXY')).toBe('XYcdef');
    expect(collapseCarriageReturns('windows line\r\nnext\r\n')).toBe('windows line\nnext\n');
    expect(terminalText('\x1b[32m 1/3\r 3/3\x1b[0m\n')).toBe(' 3/3\n');
  });
});
