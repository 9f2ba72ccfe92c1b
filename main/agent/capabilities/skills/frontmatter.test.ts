import { describe, expect, it } from 'vitest';
import { parseSimpleFrontmatter, parseYamlLenient } from './frontmatter';

const corpus = [
  'name: x\ndescription: Does things.',
  'name: Write-TUI\ndescription: Build terminal UIs, with care.\nwhen-to-use: When the user asks',
  'name: x\ndescription: "Quoted: with colon"\nlicense: \'MIT\'',
  'name: x\narguments: [file, mode, 1]\nallowed-tools: Read Grep',
  'name: x\narguments: []\n# a comment\n\ndescription: d   ',
  'name: x\r\ndescription: crlf\r\n',
  'name: x\ndescription: has # not a comment\ndisable-model-invocation: true',
  'name: 1.0\ndescription: number-like name',
  'name: x\ndescription: ends with colon:',
  'name: x\ndescription: Use when: the user asks',
  'name: x\ndescription: Step 1: read. Step 2: "write" \\ done',
  'name: x\ndescription: trailing # comment',
  'name: x\ndescription: "escaped \\" quote"',
  "name: x\ndescription: 'it''s'",
  'name: x\nmetadata:\n  author: me',
  'name: x\narguments:\n  - file',
  'name: ~\ndescription: null-ish',
  'name: x\ndescription: >\n  folded',
  'name: x\nhas-sub-skill: yes\ntype: Inline',
  'name: x\ndescription: 0x1F and more',
  'name: x\nname: y',
  'name: x\ndescription: [a: b]',
  'name: x\ndescription: -dash start',
  'name: x\ndescription: *alias',
  '  name: indented',
];

describe('parseSimpleFrontmatter', () => {
  it('answers exactly as the YAML parser wherever it answers, and declines the rest', () => {
    const answered: number[] = [];
    corpus.forEach((text, i) => {
      const simple = parseSimpleFrontmatter(text);
      if (simple === null) return;
      answered.push(i);
      expect(simple, text).toEqual(parseYamlLenient(text));
    });
    expect(answered).toEqual([0, 1, 2, 4, 5, 9, 10, 18, 19]);
  });

  it('declines what it cannot read exactly', () => {
    for (const text of ['name: x\nmetadata:\n  author: me', 'name: x\ndescription: ends with:', 'name: ~', 'name: 12', 'name: x\nname: y', 'a: "b\\"c"']) {
      expect(parseSimpleFrontmatter(text), text).toBeNull();
    }
  });
});
