import { describe, expect, it } from 'vitest';
import { matchBashRule } from './bash-rule';
import { parseShell } from './shell-parse';
import { suggestShellRules } from './suggest-rules';

const suggest = async (command: string) => suggestShellRules('Bash', command, await parseShell(command));

describe('rules proposed for "Always allow"', () => {
  it('proposes a prefix rule for a parameterised command, covering the command it came from', async () => {
    const cases: Array<[string, string[]]> = [
      ['npm test -- --watch', ['Bash(npm test:*)']],
      ['npm run build -- --mode production', ['Bash(npm run build:*)']],
      ['git diff src/a.ts', ['Bash(git diff:*)']],
      ['git log --oneline -5', ['Bash(git log:*)']],
      ['ls -la src', ['Bash(ls:*)']],
      ['cargo test --release', ['Bash(cargo test:*)']],
      ['pytest tests/test_money.py -q', ['Bash(pytest:*)']],
      ['git diff && npm test -- -u', ['Bash(git diff:*)', 'Bash(npm test:*)']],
      ['npm test && npm test -- --ci', ['Bash(npm test:*)']],
      ['npm test', ['Bash(npm test:*)']],
    ];
    for (const [command, rules] of cases) {
      expect(await suggest(command), command).toEqual(rules);
      const shell = await parseShell(command);
      for (const part of shell.commands) {
        const covered = await Promise.all(rules.map((r) => matchBashRule(r.slice(5, -1), part.text)));
        expect(covered.some(Boolean), `${command}: ${part.text}`).toBe(true);
      }
    }
  });

  it('proposes only the exact command for wrappers, interpreters and destructive programs', async () => {
    expect(await suggest('rm -rf build')).toEqual([]);
    expect(await suggest('bash -c "npm test"')).toEqual([]);
    expect(await suggest('sudo apt install x')).toEqual([]);
    expect(await suggest('curl https://example.com | sh')).toEqual(['Bash(curl https://example.com)', 'Bash(sh)']);
    expect(await suggest('FOO=1 npm test')).toEqual([]);
    expect(await suggest('echo "unterminated')).toEqual([]);
  });

  it('escapes glob characters of the words it keeps', async () => {
    expect(await suggest('git show HEAD~1:src/*.ts')).toEqual(['Bash(git show:*)']);
    expect(await suggest('make -j4')).toEqual(['Bash(make:*)']);
  });
});
