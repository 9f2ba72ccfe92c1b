import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** A git that logs its arguments, one line per run, put in place through DEFT_GIT until `restore` is called. */
export interface LoggedGit {
  /** The runs so far, oldest first. */
  calls: () => Promise<string[]>;
  /** Forget the runs so far. */
  clear: () => Promise<void>;
  /** DEFT_GIT as it was. */
  restore: () => void;
}

export async function loggedGit(): Promise<LoggedGit> {
  const log = join(await mkdtemp(join(tmpdir(), 'deft-git-log-')), 'calls');
  const wrapper = join(dirname(log), 'git');
  const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
  await writeFile(wrapper, `#!/bin/sh\necho "$*" >> '${log}'\nexec '${realGit}' "$@"\n`, { mode: 0o755 });
  await writeFile(log, '');
  const previous = process.env.DEFT_GIT;
  process.env.DEFT_GIT = wrapper;
  return {
    calls: async () => (await readFile(log, 'utf8')).split('\n').filter(Boolean),
    clear: () => writeFile(log, ''),
    restore: () => {
      if (previous === undefined) delete process.env.DEFT_GIT;
      else process.env.DEFT_GIT = previous;
    },
  };
}
