import { lstat, readFile } from 'node:fs/promises';
import type { Environment } from '#contract/environment';
import { join } from 'node:path';
import { writeFileAtomic } from '../platform/files';
import { localEnvironment } from '../environment/local/local-environment';
import { guardPath } from '../policies/path-guard';
import { INSTRUCTION_NAMES } from './locations';

const MAX_EDITABLE_BYTES = 1024 * 1024;

/** The file a line goes to in a folder (on `environment`): its AGENTS.md, else its CLAUDE.md, else a new AGENTS.md. */
export async function memoryFileIn(dir: string, environment: Environment = localEnvironment()): Promise<{ path: string; exists: boolean }> {
  for (const name of INSTRUCTION_NAMES) {
    const path = join(dir, name);
    if (
      await environment.lstat(path).then(
        () => true,
        () => false,
      )
    )
      return { path, exists: true };
  }
  return { path: join(dir, INSTRUCTION_NAMES[0]), exists: false };
}

/**
 * Add `- text` as the last line of the instruction file in `dir` (created when missing), atomically, keeping the
 * file's mode and line endings. Never through a symlink out of `dir`, never into a secret file, never a huge file.
 */
export async function appendMemoryLine(dir: string, text: string, options: { deftHome?: string } = {}): Promise<string> {
  const target = await memoryFileIn(dir);
  const guarded = await guardPath(target.path, 'write', {
    environment: localEnvironment(),
    workspace: dir,
    ...(options.deftHome ? { deftHome: options.deftHome } : {}),
  });
  if (!guarded.inside) throw new Error(`${target.path} links out of ${dir}; Deft does not write through it. Edit the file it points to yourself.`);
  let current = '';
  let mode = 0o644;
  if (target.exists) {
    const info = await lstat(guarded.real);
    if (!info.isFile()) throw new Error(`${target.path} is not a regular file.`);
    if (info.size > MAX_EDITABLE_BYTES) throw new Error(`${target.path} is larger than 1 MB; add the line with an editor.`);
    current = await readFile(guarded.real, 'utf8');
    mode = info.mode & 0o7777;
  }
  const eol = current.includes('\r\n') ? '\r\n' : '\n';
  const separator = current === '' || current.endsWith('\n') ? '' : eol;
  await writeFileAtomic(guarded.real, `${current}${separator}- ${text.trim()}${eol}`, mode);
  return target.path;
}
