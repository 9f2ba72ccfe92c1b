import { describe, expect, it } from 'vitest';
import { joinArgs, quoteArg } from './args';

describe('run dialog arguments', () => {
  it('quotes values the way the core tokenizer reads them back (see expand.test.ts), keeping positions', () => {
    expect(joinArgs(['src/app.ts', 'fix the "login" bug', '', 'C:\\path', "it's"])).toBe('src/app.ts "fix the \\"login\\" bug" "" "C:\\\\path" "it\'s"');
    expect(joinArgs(['a', '', ''])).toBe('a');
    expect(quoteArg('plain')).toBe('plain');
  });
});
