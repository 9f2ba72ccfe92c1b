import { describe, expect, it } from 'vitest';
import { parseContextCommand } from './parse-command';

describe('/compact and /undo in the composer', () => {
  it('parses both, with their arguments, and nothing else', () => {
    expect(parseContextCommand('/compact')).toEqual({ kind: 'compact', instructions: '' });
    expect(parseContextCommand('  /compact keep the API names\nand the paths ')).toEqual({
      kind: 'compact',
      instructions: 'keep the API names\nand the paths',
    });
    expect(parseContextCommand('/undo')).toEqual({ kind: 'undo', count: 1 });
    expect(parseContextCommand('/undo 3')).toEqual({ kind: 'undo', count: 3 });
    expect(parseContextCommand('/undo two')).toMatchObject({ kind: 'invalid', message: expect.stringContaining('Usage: /undo [n]') });
    expect(parseContextCommand('/undo 0')).toMatchObject({ kind: 'invalid' });
    expect(parseContextCommand('/undo 101')).toMatchObject({ kind: 'invalid' });
    expect(parseContextCommand('/compactor')).toBeNull();
    expect(parseContextCommand('/undone')).toBeNull();
    expect(parseContextCommand('please /undo')).toBeNull();
  });
});
