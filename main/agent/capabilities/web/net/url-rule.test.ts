import { describe, expect, it } from 'vitest';
import { parseTarget } from './target';
import { hostRule, urlRuleMatches } from './url-rule';

describe('FetchURL rules', () => {
  it('store the host-wide rule, escaped', () => {
    expect(hostRule(parseTarget('HTTPS://Docs.Example.com:443/a/b?q=1#x'))).toBe('FetchURL(https://docs.example.com/*)');
    expect(hostRule(parseTarget('http://[::1]:8080/'))).toBe('FetchURL(http://\\[::1\\]:8080/*)');
  });

  it('match the normalised URL, so case, default ports, escapes and trailing dots cannot dodge a rule', () => {
    const target = parseTarget('HTTPS://Docs.Example.COM.:443/%61pi/%69nternal?x=%41');
    expect(target.normalised).toBe('https://docs.example.com/api/internal?x=A');
    expect(urlRuleMatches('https://docs.example.com/api*', target)).toBe(true);
    expect(urlRuleMatches('*internal*', target)).toBe(true);
    expect(urlRuleMatches('*INTERNAL*', target)).toBe(true);
    expect(urlRuleMatches('https://Docs.Example.com:443/*', target)).toBe(true);
    expect(urlRuleMatches('https://other.example.com/*', target)).toBe(false);
    expect(urlRuleMatches('!https://docs.example.com/*', target)).toBe(false);
    // The stored rule matches what it was made from, and only that host.
    const stored = hostRule(target).slice('FetchURL('.length, -1);
    expect(urlRuleMatches(stored, target)).toBe(true);
    expect(urlRuleMatches(stored, parseTarget('https://docs.example.com.evil.example/'))).toBe(false);
    expect(urlRuleMatches(stored, parseTarget('http://docs.example.com/'))).toBe(false);
  });

  it('decode percent-escapes once only', () => {
    expect(parseTarget('https://x.example/%2561').normalised).toBe('https://x.example/%61');
  });
});
