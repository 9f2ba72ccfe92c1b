import { chmod, readFile, stat, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FileToolKit, fileToolKit } from '#test-support/file-tools';

let kit: FileToolKit;
beforeEach(async () => {
  kit = await fileToolKit();
});
afterEach(async () => {
  await kit.dispose();
});

/** Put a file and Read it, as the model would before editing. */
async function seen(path: string, content: string | Buffer): Promise<string> {
  const full = await kit.put(path, content);
  await kit.call('Read', { path });
  return full;
}

const source = `import { a } from './a';

export function total(items: number[]): number {
  let sum = 0;
  for (const item of items) {
    sum += item;
  }
  return sum;
}
`;

describe('Edit', () => {
  it('replaces exactly one occurrence and shows the diff', async () => {
    await seen('src/total.ts', source);
    const { result, execution } = await kit.call('Edit', { path: 'src/total.ts', old_string: '    sum += item;', new_string: '    sum += item * 2;' });
    expect(result.output).toBe('Replaced 1 occurrence in src/total.ts (first at line 6).');
    expect(await kit.get('src/total.ts')).toBe(source.replace('sum += item;', 'sum += item * 2;'));
    const diff = { kind: 'diff', path: 'src/total.ts', added: 1, removed: 1, hunks: [{ oldStart: 3, oldLines: 7, newStart: 3, newLines: 7 }] };
    expect(result.display).toMatchObject(diff);
    expect(execution!.display).toMatchObject(diff);
    const hunk = (result.display as { hunks: { lines: string[] }[] }).hunks[0]!;
    expect(hunk.lines).toEqual([
      ' export function total(items: number[]): number {',
      '   let sum = 0;',
      '   for (const item of items) {',
      '-    sum += item;',
      '+    sum += item * 2;',
      '   }',
      '   return sum;',
      ' }',
    ]);
    expect(execution!.accesses).toEqual([{ kind: 'file', operation: 'readwrite', path: join(kit.workspace, 'src/total.ts') }]);
    expect(execution!.approvalRule).toBe(`Edit(${join(kit.workspace, 'src/total.ts')})`);
  });

  it('refuses identical strings and an empty old_string', async () => {
    await seen('a.txt', 'a\n');
    expect((await kit.call('Edit', { path: 'a.txt', old_string: 'a', new_string: 'a' })).text).toMatch(/identical, so there are no changes to make/);
    expect((await kit.call('Edit', { path: 'a.txt', old_string: '', new_string: 'b' })).text).toMatch(
      /must NOT have fewer than 1 characters|old_string must not be empty/,
    );
  });

  it('reports several matches with their count, lines and both ways out; replace_all replaces them all', async () => {
    await seen('r.ts', 'let x = 1;\nlet y = x;\nlet z = x;\n');
    const many = await kit.call('Edit', { path: 'r.ts', old_string: 'x', new_string: 'count' });
    expect(many.result.isError).toBe(true);
    expect(many.text).toBe(
      'Found 3 occurrences of old_string in r.ts (at lines 1, 2, 3). Either set replace_all=true to replace all of them, or add surrounding lines to old_string so it matches exactly one.',
    );
    const all = await kit.call('Edit', { path: 'r.ts', old_string: 'x', new_string: 'count', replace_all: true });
    expect(all.result.output).toBe('Replaced 3 occurrences in r.ts (first at line 1).');
    expect(await kit.get('r.ts')).toBe('let count = 1;\nlet y = count;\nlet z = count;\n');
  });

  it('shows the closest passage with line numbers when old_string is not found', async () => {
    await seen('src/total.ts', source);
    const miss = await kit.call('Edit', { path: 'src/total.ts', old_string: '  for (const itm of items) {\n    sum += itm;\n  }', new_string: 'x' });
    expect(miss.result.isError).toBe(true);
    expect(miss.text).toContain('old_string was not found in src/total.ts. The closest passage is lines 5-7.');
    expect(miss.text).toContain('5\t  for (const item of items) {\n6\t    sum += item;\n7\t  }');
    expect(miss.text).toContain('Read the file again if it may have changed');
  });

  it('says when the closest passage differs only in whitespace', async () => {
    await seen('src/total.ts', source);
    const miss = await kit.call('Edit', { path: 'src/total.ts', old_string: 'let sum = 0;\nfor (const item of items) {', new_string: 'x' });
    expect(miss.text).toContain('The closest passage is lines 4-5. It differs from your old_string only in whitespace');
  });

  it('says when nothing resembles old_string', async () => {
    await seen('src/total.ts', source);
    const miss = await kit.call('Edit', { path: 'src/total.ts', old_string: 'qqqqqq zzzzzz', new_string: 'x' });
    expect(miss.text).toBe(
      'old_string was not found in src/total.ts. Nothing in the file resembles it. Read the file again to see its current content, then retry with text copied exactly from it.',
    );
  });

  it('edits a CRLF file through its LF view and writes CRLF back', async () => {
    await seen('win.txt', 'alpha\r\nbeta\r\ngamma\r\n');
    const { result } = await kit.call('Edit', { path: 'win.txt', old_string: 'alpha\nbeta', new_string: 'alpha\nbeta\nbeta2' });
    expect(result.isError).toBeFalsy();
    expect(await kit.get('win.txt')).toBe('alpha\r\nbeta\r\nbeta2\r\ngamma\r\n');
    // A model that sends CRLF itself is understood too.
    await kit.call('Edit', { path: 'win.txt', old_string: 'beta2\r\ngamma', new_string: 'delta' });
    expect(await kit.get('win.txt')).toBe('alpha\r\nbeta\r\ndelta\r\n');
    // Strings that differ only in line endings change nothing in a CRLF file: refused, not "replaced".
    const same = await kit.call('Edit', { path: 'win.txt', old_string: 'beta\r\ndelta', new_string: 'beta\ndelta' });
    expect(same.result).toMatchObject({ isError: true, output: expect.stringMatching(/differ only in line endings.*no changes to make/) });
  });

  it('matches a mixed-line-ending file literally', async () => {
    await seen('mixed.txt', 'one\r\ntwo\nthree\n');
    expect((await kit.call('Edit', { path: 'mixed.txt', old_string: 'one\ntwo', new_string: 'x' })).result.isError).toBe(true);
    await kit.call('Edit', { path: 'mixed.txt', old_string: 'one\r\ntwo', new_string: 'x' });
    expect(await kit.get('mixed.txt')).toBe('x\nthree\n');
  });

  it('applies the stale guard: unread files and files changed on disk are refused', async () => {
    const path = await kit.put('s.txt', 'one\n');
    expect((await kit.call('Edit', { path: 's.txt', old_string: 'one', new_string: 'two' })).text).toMatch(
      /^s\.txt has not been read in this session yet\. Read it first/,
    );
    await kit.call('Read', { path: 's.txt' });
    await kit.call('Edit', { path: 's.txt', old_string: 'one', new_string: 'two' });
    // Its own edit does not make the file stale.
    await kit.call('Edit', { path: 's.txt', old_string: 'two', new_string: 'three' });
    expect(await kit.get('s.txt')).toBe('three\n');
    await kit.put('s.txt', 'three\nand more\n');
    await utimes(path, new Date(), new Date(Date.now() + 5_000));
    expect((await kit.call('Edit', { path: 's.txt', old_string: 'three', new_string: 'four' })).text).toMatch(
      /^s\.txt was modified on disk since you last read or wrote it/,
    );
  });

  it('keeps the mode and a UTF-8 byte-order mark, and never interprets $ patterns', async () => {
    const path = await seen('bom.sh', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('echo A\n')]));
    await chmod(path, 0o700);
    await kit.call('Read', { path: 'bom.sh' });
    await kit.call('Edit', { path: 'bom.sh', old_string: 'A', new_string: "$& $' $1" });
    const bytes = await readFile(path);
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(bytes.subarray(3).toString()).toBe("echo $& $' $1\n");
    expect((await stat(path)).mode & 0o777).toBe(0o700);
  });

  it('explains a missing file, binary content and secrets', async () => {
    expect((await kit.call('Edit', { path: 'nope.ts', old_string: 'a', new_string: 'b' })).text).toBe('nope.ts does not exist. To create a file, use Write.');
    await seen('bin.dat', Buffer.from([1, 0, 2, 3]));
    expect((await kit.call('Edit', { path: 'bin.dat', old_string: 'a', new_string: 'b' })).text).toMatch(/not readable as UTF-8 text/);
    expect((await kit.call('Edit', { path: '.env', old_string: 'a', new_string: 'b' })).text).toMatch(/sensitive file/);
  });
});
