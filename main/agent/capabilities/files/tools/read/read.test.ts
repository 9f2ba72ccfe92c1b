import { open, symlink, truncate } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ByteSource, readForward, readTail } from '../../line-reader';
import { type FileToolKit, fileToolKit } from '#test-support/file-tools';
import { MAX_BYTES } from './read';

let kit: FileToolKit;
beforeEach(async () => {
  kit = await fileToolKit();
});
afterEach(async () => {
  await kit.dispose();
});

const lines = (count: number, make = (i: number) => `line ${i}`) => Array.from({ length: count }, (_, i) => make(i + 1)).join('\n') + '\n';

describe('Read', () => {
  it('returns numbered lines and a status note for the model', async () => {
    await kit.put('src/a.ts', 'const a = 1;\nconst b = 2;\n');
    const { result } = await kit.call('Read', { path: 'src/a.ts' });
    expect(result.isError).toBeFalsy();
    expect(result.output).toBe('1\tconst a = 1;\n2\tconst b = 2;');
    expect(result.note).toBe('<system>2 lines read from file starting from line 1. Total lines in file: 2. End of file reached.</system>');
    expect(result.display).toMatchObject({
      kind: 'file_content',
      path: 'src/a.ts',
      content: 'const a = 1;\nconst b = 2;',
      range: { start: 1, end: 2 },
      totalLines: 2,
    });
  });

  it('pages with line_offset and n_lines, and says where to continue', async () => {
    await kit.put('big.txt', lines(50));
    const { result } = await kit.call('Read', { path: 'big.txt', line_offset: 10, n_lines: 3 });
    expect(result.output).toBe('10\tline 10\n11\tline 11\n12\tline 12');
    expect(result.note).toContain('3 lines read from file starting from line 10. Total lines in file: 50.');
    expect(result.note).toContain('Continue with line_offset=13.');
  });

  it('stops at 1,000 lines', async () => {
    await kit.put('long.txt', lines(1500));
    const { result } = await kit.call('Read', { path: 'long.txt' });
    const out = result.output as string;
    expect(out.split('\n')).toHaveLength(1000);
    expect(out.split('\n').at(-1)).toBe('1000\tline 1000');
    expect(result.note).toContain('Total lines in file: 1500. Max 1000 lines reached. Continue with line_offset=1001.');
  });

  it('stops at 100 KiB of output', async () => {
    await kit.put(
      'wide.txt',
      lines(900, (i) => `${i} ${'x'.repeat(300)}`),
    );
    const { result } = await kit.call('Read', { path: 'wide.txt' });
    const out = result.output as string;
    expect(Buffer.byteLength(out)).toBeLessThanOrEqual(MAX_BYTES);
    expect(out.split('\n').length).toBeLessThan(900);
    expect(result.note).toContain(`Max ${MAX_BYTES} bytes reached.`);
  });

  it('cuts lines longer than 2,000 characters and names them', async () => {
    await kit.put('min.js', `short\n${'y'.repeat(5000)}\nend\n`);
    const { result } = await kit.call('Read', { path: 'min.js' });
    const second = (result.output as string).split('\n')[1]!;
    expect(second).toBe(`2\t${'y'.repeat(2000)}...`);
    expect(result.note).toContain('Lines [2] were truncated to 2000 characters.');
  });

  it('cuts a long line of emoji without splitting a character', async () => {
    await kit.put('emoji.txt', `a${'😀'.repeat(3000)}\n`);
    const { result } = await kit.call('Read', { path: 'emoji.txt' });
    expect(result.output).toBe(`1\ta${'😀'.repeat(999)}...`);
  });

  it('reads the tail with a negative line_offset, numbering lines from the start', async () => {
    await kit.put('log.txt', lines(300));
    const { result } = await kit.call('Read', { path: 'log.txt', line_offset: -3 });
    expect(result.output).toBe('298\tline 298\n299\tline 299\n300\tline 300');
    expect(result.note).toContain('3 lines read from file starting from line 298. Total lines in file: 300. End of file reached.');
    const noFinalNewline = await kit.call('Read', { path: await kit.put('n.txt', 'a\nb\nc'), line_offset: -2 });
    expect(noFinalNewline.result.output).toBe('2\tb\n3\tc');
  });

  it('trims a tail read from the front to fit 100 KiB', async () => {
    await kit.put(
      'wide-log.txt',
      lines(1000, (i) => `${i} ${'z'.repeat(300)}`),
    );
    const { result } = await kit.call('Read', { path: 'wide-log.txt', line_offset: -1000 });
    const out = (result.output as string).split('\n');
    expect(out.at(-1)).toMatch(/^1000\t1000 z+$/);
    expect(Buffer.byteLength(out.join('\n'))).toBeLessThanOrEqual(MAX_BYTES);
    expect(result.note).toContain('the earliest of the requested lines were dropped');
  });

  it('rejects line_offset 0 and tails longer than 1,000 lines', async () => {
    await kit.put('a.txt', 'a\n');
    expect((await kit.call('Read', { path: 'a.txt', line_offset: 0 })).text).toMatch(/0 is not a line/);
    expect((await kit.call('Read', { path: 'a.txt', line_offset: -1001 })).text).toMatch(/must be >= -1000/);
    expect((await kit.call('Read', { path: 'a.txt', line_offset: 5 })).text).toMatch(/has 1 lines; line_offset 5 is past its end/);
  });

  it('refuses images and video with a pointer to ReadMediaFile, and binaries with a reason', async () => {
    await kit.put('shot.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]));
    expect((await kit.call('Read', { path: 'shot.png' })).text).toBe('shot.png is an image (PNG), not text. Use ReadMediaFile to look at it.');
    await kit.put('clip.mp4', Buffer.from('\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00', 'latin1'));
    expect((await kit.call('Read', { path: 'clip.mp4' })).text).toMatch(/is a video .* ReadMediaFile/);
    await kit.put('doc.pdf', '%PDF-1.7\n...');
    expect((await kit.call('Read', { path: 'doc.pdf' })).text).toMatch(/not readable as UTF-8 text: it is a PDF/);
    await kit.put('blob.dat', Buffer.from([0x41, 0x00, 0x42]));
    expect((await kit.call('Read', { path: 'blob.dat' })).text).toMatch(/not readable as UTF-8 text: it is a binary data/);
    await kit.put('latin1.txt', Buffer.from('caf\xe9\n', 'latin1'));
    const latin = await kit.call('Read', { path: 'latin1.txt' });
    expect(latin.result.isError).toBe(true);
    expect(latin.text).toMatch(/not valid UTF-8 text \(invalid byte sequence on line 1\).*iconv/);
  });

  it('refuses NUL bytes past the sniffed header', async () => {
    await kit.put('late-nul.txt', `${'a'.repeat(600)}\nok\nbad\u0000here\n`);
    expect((await kit.call('Read', { path: 'late-nul.txt' })).text).toMatch(/contains NUL bytes \(line 3\)/);
  });

  it('shows a pure-CRLF file with LF, and mixed endings with a visible \\r and a hint', async () => {
    await kit.put('win.txt', 'one\r\ntwo\r\n');
    const crlf = await kit.call('Read', { path: 'win.txt' });
    expect(crlf.result.output).toBe('1\tone\n2\ttwo');
    expect(crlf.result.note).not.toContain('mixes');
    await kit.put('mixed.txt', 'one\r\ntwo\nthree\rfour\n');
    const mixed = await kit.call('Read', { path: 'mixed.txt' });
    expect(mixed.result.output).toBe('1\tone\\r\n2\ttwo\n3\tthree\\rfour');
    expect(mixed.result.note).toContain('mixes line endings (1 CRLF, 2 LF, 1 lone CR)');
  });

  it('transcodes UTF-16 text', async () => {
    await kit.put('u16.txt', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('héllo\nwörld\n', 'utf16le')]));
    const { result } = await kit.call('Read', { path: 'u16.txt' });
    expect(result.output).toBe('1\théllo\n2\twörld');
    expect(result.note).toContain('UTF-16LE text, shown transcoded');
  });

  it('handles empty files, missing files and folders', async () => {
    await kit.put('empty.txt', '');
    const empty = await kit.call('Read', { path: 'empty.txt' });
    expect(empty.result.isError).toBeFalsy();
    expect(empty.result.note).toContain('The file is empty');
    expect((await kit.call('Read', { path: 'nope.txt' })).text).toMatch(/^nope\.txt does not exist\. Check the path; Glob finds files by name\.$/);
    await kit.put('dir/x.txt', 'x');
    expect((await kit.call('Read', { path: 'dir' })).text).toMatch(/dir is a directory, not a file/);
  });

  it('follows the path guard: relative escapes refused, absolute outside allowed, symlink escapes refused, secrets refused', async () => {
    await kit.put(join(kit.outside, 'notes.txt'), 'outside\n');
    expect((await kit.call('Read', { path: '../notes.txt' })).text).toMatch(/must provide an absolute path/);
    expect((await kit.call('Read', { path: join(kit.outside, 'notes.txt') })).result.output).toBe('1\toutside');
    await symlink(kit.outside, join(kit.workspace, 'out-link'));
    expect((await kit.call('Read', { path: 'out-link/notes.txt' })).text).toMatch(/points outside the workspace/);
    for (const secret of ['.env', '.env.local', 'keys/id_rsa_old', 'keys/ID_ED25519.bak', '.aws/credentials', '.ENV']) {
      await kit.put(secret, 'SECRET=1\n');
      expect((await kit.call('Read', { path: secret })).text, secret).toMatch(/is a sensitive file/);
    }
    for (const allowed of ['.env.example', 'keys/id_rsa.pub', 'credentials.json']) {
      await kit.put(allowed, 'fine\n');
      expect((await kit.call('Read', { path: allowed })).result.output, allowed).toBe('1\tfine');
    }
  });

  it('declares a read access, an exact approval rule and path rule matching', async () => {
    await kit.put('src/app.ts', 'x\n');
    const { execution } = await kit.call('Read', { path: './src/app.ts' });
    expect(execution!.readOnly).toBe(true);
    expect(execution!.accesses).toEqual([{ kind: 'file', operation: 'read', path: join(kit.workspace, 'src/app.ts') }]);
    expect(execution!.approvalRule).toBe(`Read(${join(kit.workspace, 'src/app.ts')})`);
    expect(execution!.matchesRule!('src/**')).toBe(true);
    expect(execution!.matchesRule!(`${kit.workspace}/**/*.ts`)).toBe(true);
    expect(execution!.matchesRule!('test/**')).toBe(false);
  });
});

/** Counts the bytes a read touches, to prove a window does not scan the file. */
async function countingSource(path: string) {
  const handle = await open(path, 'r');
  const { size } = await handle.stat();
  const counter = { bytes: 0 };
  const source: ByteSource = {
    size,
    read: async (into, position, length) => {
      const { bytesRead } = await handle.read(into, 0, length, position);
      counter.bytes += bytesRead;
      return bytesRead;
    },
  };
  return { source, counter, close: () => handle.close() };
}

describe('Read on a 2 GB sparse file', () => {
  const SIZE = 2 * 1024 ** 3;
  const options = {
    maxLines: 1000,
    maxBytes: MAX_BYTES,
    renderedBytes: (l: { n: number; text: string }) => l.text.length + 8,
    keepBytes: 8004,
    countLimitBytes: 64 * 1024 * 1024,
  };

  it('reads the first and last 1,000 lines touching only those bytes', async () => {
    const path = join(kit.workspace, 'huge.log');
    await kit.put(
      path,
      lines(2000, (i) => `head ${i}`),
    );
    await truncate(path, SIZE);
    const handle = await open(path, 'r+');
    const tailText = Buffer.from(`\n${lines(2000, (i) => `tail ${i}`)}`);
    await handle.write(tailText, 0, tailText.length, SIZE - tailText.length);
    await handle.close();

    const head = await countingSource(path);
    const forward = await readForward(head.source, 1, options);
    await head.close();
    expect(forward.lines).toHaveLength(1000);
    expect(forward.lines[999]).toMatchObject({ n: 1000, text: 'head 1000' });
    expect(forward.totalLines).toBeNull();
    expect(head.counter.bytes).toBeLessThan(1024 * 1024);

    const tail = await countingSource(path);
    const back = await readTail(tail.source, 1000, options);
    await tail.close();
    expect(back.lines).toHaveLength(1000);
    expect(back.lines.at(-1)).toMatchObject({ n: -1, text: 'tail 2000' });
    expect(back.lines[0]).toMatchObject({ n: -1000, text: 'tail 1001' });
    expect(tail.counter.bytes).toBeLessThan(1024 * 1024);

    const viaTool = await kit.call('Read', { path: 'huge.log', line_offset: -2 });
    expect(viaTool.result.output).toBe('-2\ttail 1999\n-1\ttail 2000');
    expect(viaTool.result.note).toContain('Line numbers are counted from the end of the file');
    const first = await kit.call('Read', { path: 'huge.log', n_lines: 2 });
    expect(first.result.output).toBe('1\thead 1\n2\thead 2');
    expect(first.result.note).toContain('Total lines in file: not counted');
  });
});
