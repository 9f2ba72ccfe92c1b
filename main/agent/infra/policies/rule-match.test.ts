import { homedir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { exactRule, matchGlobSubject, matchPathSubject } from './rule-match';

describe('matchGlobSubject', () => {
  it('lets * cross slashes and spaces in commands and URLs', () => {
    expect(matchGlobSubject('npm *', 'npm run build -- --out=/tmp/x')).toBe(true);
    expect(matchGlobSubject('git status', 'git status')).toBe(true);
    expect(matchGlobSubject('git *', 'gitk')).toBe(false);
    expect(matchGlobSubject('https://docs.example.com/*', 'https://docs.example.com/a/b?c=1')).toBe(true);
  });
  it('negates with !', () => {
    expect(matchGlobSubject('!rm *', 'rm -rf x')).toBe(false);
    expect(matchGlobSubject('!rm *', 'ls')).toBe(true);
  });
});

describe('matchPathSubject', () => {
  const forms = { absolute: '/work/app/src/Main.ts', relative: 'src/Main.ts' };
  it('matches absolute and workspace-relative forms, case-insensitively', () => {
    expect(matchPathSubject('/work/app/src/**', forms)).toBe(true);
    expect(matchPathSubject('src/*.ts', forms)).toBe(true);
    expect(matchPathSubject('./src/main.ts', forms)).toBe(true);
    expect(matchPathSubject('**/*.md', forms)).toBe(false);
  });
  it('expands ~/ in a pattern to the home folder', () => {
    const absolute = join(homedir(), 'notes', 'a.md');
    expect(matchPathSubject('~/notes/*.md', { absolute })).toBe(true);
    expect(matchPathSubject('~/other/*.md', { absolute })).toBe(false);
  });
  it('keeps * within one path segment', () => {
    expect(matchPathSubject('/work/*', forms)).toBe(false);
    expect(matchPathSubject('!/work/app/**', forms)).toBe(false);
  });
});

describe('exactRule', () => {
  it('escapes glob specials so the stored rule matches only this subject', () => {
    const rule = exactRule('Bash', 'ls *.ts (all)');
    expect(rule).toBe('Bash(ls \\*.ts \\(all\\))');
    const argument = rule.slice('Bash('.length, -1);
    expect(matchGlobSubject(argument, 'ls *.ts (all)')).toBe(true);
    expect(matchGlobSubject(argument, 'ls a.ts (all)')).toBe(false);
  });
});
