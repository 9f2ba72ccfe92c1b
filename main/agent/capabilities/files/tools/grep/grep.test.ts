import { localEnvironment } from '#infra/environment/local/local-environment';
import { execFileSync } from 'node:child_process';
import { utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { completeRecords, runRipgrep } from '../../ripgrep';
import { ripgrepPath } from '#infra/environment/local/ripgrep-binary';
import { type FileToolKit, fileToolKit } from '#test-support/file-tools';
import { isExecution } from '#contract/tool';
import { grepTool } from './grep';
import { inputSchemaOf } from '#contract/tool-input';

let kit: FileToolKit;
beforeEach(async () => {
  kit = await fileToolKit();
  const files: Record<string, string> = {
    'src/a.ts': 'export const alpha = 1;\nconst beta = alpha + 1;\nconst gamma = 3;\n',
    'src/b.ts': 'import { alpha } from "./a";\nconsole.log(alpha);\n',
    'src/c.py': 'ALPHA = "alpha"\n',
    '.hidden/h.ts': 'alpha in a hidden folder\n',
    '.gitignore': 'dist/\n',
    'dist/out.js': 'alpha built\n',
    '.git/config': 'alpha in git\n',
    '.env': 'ALPHA_KEY=alpha\n',
    '.env.example': 'ALPHA_KEY=alpha-example\n',
    'keys/id_rsa_old': 'alpha key\n',
  };
  let t = 1_000_000;
  for (const [path, content] of Object.entries(files)) {
    const full = await kit.put(path, content);
    t += 100;
    await utimes(full, t, t);
  }
  // b.ts is the newest.
  await utimes(join(kit.workspace, 'src/b.ts'), 2_000_000, 2_000_000);
});
afterEach(async () => {
  await kit.dispose();
});

describe('Grep', () => {
  it('lists matching files newest first; hidden searched, ignored/VCS skipped, secrets filtered and counted', async () => {
    const { result, execution } = await kit.call('Grep', { pattern: 'alpha' });
    const out = (result.output as string).split('\n');
    expect(out[0]).toBe('Found 5 files (newest first).');
    expect(out.slice(2)).toEqual(['src/b.ts', '.env.example', '.hidden/h.ts', 'src/c.py', 'src/a.ts']);
    expect(out[1]).toBe('Filtered 2 sensitive file(s) (secrets are never searched or listed): .env, keys/id_rsa_old.');
    expect(result.display).toMatchObject({
      kind: 'search_results',
      query: 'alpha',
      total: 5,
      matches: [{ file: 'src/b.ts' }, { file: '.env.example' }, { file: '.hidden/h.ts' }, { file: 'src/c.py' }, { file: 'src/a.ts' }],
    });
    expect(execution!.readOnly).toBe(true);
    expect(execution!.accesses).toEqual([{ kind: 'file', operation: 'search', path: kit.workspace, recursive: true }]);
    expect(execution!.approvalRule).toBe('Grep(alpha)');
    expect(execution!.matchesRule!('alp*')).toBe(true);
    expect(execution!.matchesRule!('beta')).toBe(false);
  });

  it('searches ignored files on request, but never VCS folders or secrets, whatever the glob', async () => {
    const ignored = await kit.call('Grep', { pattern: 'alpha', include_ignored: true });
    expect(ignored.result.output).toContain('dist/out.js');
    expect(ignored.result.output).not.toContain('.git/config');
    const targeted = await kit.call('Grep', { pattern: 'alpha', glob: '.env*' });
    expect(targeted.result.output).toBe(
      'Found 1 file (newest first).\nFiltered 1 sensitive file(s) (secrets are never searched or listed): .env.\n.env.example',
    );
    const git = await kit.call('Grep', { pattern: 'alpha', glob: '**/.git/**', include_ignored: true });
    expect(git.result.output).toMatch(/^No files were searched: nothing under \. passes the glob\/type filters \(\*\*\/\.git\/\*\*\)/);
  });

  it('shows content with line numbers and context, grouped by file', async () => {
    const { result } = await kit.call('Grep', { pattern: 'beta', output_mode: 'content', '-C': 1, path: 'src' });
    expect(result.output).toBe(
      'Found 1 matching line in 1 file.\nsrc/a.ts-1-export const alpha = 1;\nsrc/a.ts:2:const beta = alpha + 1;\nsrc/a.ts-3-const gamma = 3;',
    );
    expect(result.display).toMatchObject({ kind: 'search_results', total: 1, matches: [{ file: 'src/a.ts', line: 2, text: 'const beta = alpha + 1;' }] });
    const plain = await kit.call('Grep', { pattern: 'beta', output_mode: 'content', '-n': false, path: 'src/a.ts' });
    expect(plain.result.output).toBe('Found 1 matching line in 1 file.\nsrc/a.ts:const beta = alpha + 1;');
  });

  it('counts matches with a total first', async () => {
    const { result } = await kit.call('Grep', { pattern: 'alpha', output_mode: 'count_matches', path: 'src' });
    expect(result.output).toBe('Found 5 total occurrences across 3 files.\nsrc/b.ts:2\nsrc/c.py:1\nsrc/a.ts:2');
  });

  it('pages results with head_limit and offset, and says how to get the next page', async () => {
    const first = await kit.call('Grep', { pattern: 'alpha', head_limit: 2 });
    expect(first.result.output).toMatch(/^Found 5 files \(newest first\)\.\nShowing files 1-2 of 5; use offset=2 to see more\.\n/);
    expect((first.result.output as string).split('\n').slice(-2)).toEqual(['src/b.ts', '.env.example']);
    const last = await kit.call('Grep', { pattern: 'alpha', head_limit: 2, offset: 4 });
    expect(last.result.output).toMatch(/Showing files 5-5 of 5\.\n/);
    expect((last.result.output as string).split('\n').at(-1)).toBe('src/a.ts');
    const unlimited = await kit.call('Grep', { pattern: 'alpha', head_limit: 0 });
    expect((unlimited.result.output as string).split('\n')).toHaveLength(7);
  });

  it('filters by case, type and glob, and supports multiline patterns', async () => {
    expect((await kit.call('Grep', { pattern: 'ALPHA =', path: 'src' })).result.output).toBe('Found 1 file (newest first).\nsrc/c.py');
    expect((await kit.call('Grep', { pattern: 'ALPHA', '-i': true, type: 'ts', path: 'src' })).result.output).toBe(
      'Found 2 files (newest first).\nsrc/b.ts\nsrc/a.ts',
    );
    expect((await kit.call('Grep', { pattern: 'alpha', glob: '*.py' })).result.output).toBe('Found 1 file (newest first).\nsrc/c.py');
    const multi = await kit.call('Grep', { pattern: 'alpha = 1;\\nconst beta', multiline: true, output_mode: 'content' });
    expect(multi.result.output).toBe('Found 2 matching lines in 1 file.\nsrc/a.ts:1:export const alpha = 1;\nsrc/a.ts:2:const beta = alpha + 1;');
  });

  it('explains bad patterns, missing paths and empty results', async () => {
    const bad = await kit.call('Grep', { pattern: 'foo(' });
    expect(bad.result.isError).toBe(true);
    expect(bad.text).toMatch(/^ripgrep failed \(exit 2\): .*regex parse error[\s\S]*Check the pattern/);
    expect((await kit.call('Grep', { pattern: 'x', path: 'nowhere' })).text).toMatch(/^nowhere does not exist/);
    expect((await kit.call('Grep', { pattern: 'zzz-not-here' })).result.output).toBe('No matches found.');
    expect((await kit.call('Grep', { pattern: 'x', path: '../' })).text).toMatch(/must provide an absolute path/);
  });

  it('reports a timeout with nothing found as an error that says how to narrow the search', async () => {
    // Thousands of files and no match: rg cannot finish within 1 ms, and has printed nothing when stopped
    // (with a few matching files it sometimes won the race on a busy machine).
    await Promise.all(Array.from({ length: 3000 }, (_, i) => kit.put(`many/${i % 30}/f${i}.txt`, 'nothing to see\n')));
    const tool = grepTool({ timeoutMs: 1 });
    const execution = await tool.resolveExecution(inputSchemaOf(tool.input).parse({ pattern: 'zzz-never-found', path: 'many' }), kit.env);
    if (!isExecution(execution)) throw new Error('expected an execution');
    const result = await execution.execute({ signal: new AbortController().signal, onUpdate: () => {}, callId: 'c', turnId: 't', step: 1 });
    expect(result).toMatchObject({
      isError: true,
      output: 'Grep timed out after 0.001 s without finding anything. Narrow the search with path, glob or type.',
    });
  });
});

describe('runRipgrep', () => {
  it('finds a ripgrep binary', () => {
    expect(execFileSync(ripgrepPath(), ['--version']).toString()).toMatch(/^ripgrep \d+/);
  });

  it('keeps partial results when the time limit stops rg', async () => {
    await kit.put('slow/a.txt', 'alpha\n');
    execFileSync('mkfifo', [join(kit.workspace, 'slow/pipe')]);
    const result = await runRipgrep(['--no-config', '-j', '1', '--line-buffered', '-l', '--regexp', 'alpha', '--', 'a.txt', 'pipe'], {
      environment: localEnvironment(),
      cwd: join(kit.workspace, 'slow'),
      signal: new AbortController().signal,
      timeoutMs: 400,
    });
    expect(result.timedOut).toBe(true);
    expect(result.exitCode).toBeNull();
    expect(result.stdout.toString()).toBe('a.txt\n');
  });

  it('drops a record cut by the output cap', () => {
    expect(completeRecords(Buffer.from('a\0one\nb\0tw'))).toEqual(['a\0one']);
  });
});
