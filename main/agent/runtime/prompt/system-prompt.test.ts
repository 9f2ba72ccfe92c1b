import { localEnvironment } from '#infra/environment/local/local-environment';
import { execFileSync } from 'node:child_process';
import { mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '#test-support/harness';
import { gitSummary, readAgentsMd } from './system-prompt';

let ws: string;
let outside: string;
beforeEach(async () => {
  ws = await tempDir('deft-agents-ws-');
  outside = await tempDir('deft-agents-out-');
});
afterEach(async () => {
  await rm(ws, { recursive: true, force: true });
  await rm(outside, { recursive: true, force: true });
});

describe('readAgentsMd', () => {
  it('reads AGENTS.md at the workspace root, also through a link that stays inside, and caps it', async () => {
    expect(await readAgentsMd(localEnvironment(), ws)).toBeNull();
    await mkdir(join(ws, 'docs'));
    await writeFile(join(ws, 'docs', 'agents.md'), 'Use pnpm.\n');
    await symlink(join(ws, 'docs', 'agents.md'), join(ws, 'AGENTS.md'));
    expect(await readAgentsMd(localEnvironment(), ws)).toBe('Use pnpm.\n');
    await rm(join(ws, 'AGENTS.md'));
    await writeFile(join(ws, 'AGENTS.md'), 'é'.repeat(30));
    expect(await readAgentsMd(localEnvironment(), ws, 10)).toBe(`${'é'.repeat(10)}\n[AGENTS.md truncated at 10 characters]`);
    expect(await readAgentsMd(localEnvironment(), ws, 30)).toBe('é'.repeat(30));
  });

  it('never puts a secret or a file outside the workspace into the prompt through a symlinked AGENTS.md', async () => {
    await writeFile(join(outside, '.env'), 'API_KEY=secret\n');
    await symlink(join(outside, '.env'), join(ws, 'AGENTS.md'));
    expect(await readAgentsMd(localEnvironment(), ws)).toBeNull();
    await rm(join(ws, 'AGENTS.md'));
    await writeFile(join(outside, 'notes.md'), 'private notes\n');
    await symlink(join(outside, 'notes.md'), join(ws, 'AGENTS.md'));
    expect(await readAgentsMd(localEnvironment(), ws)).toBeNull();
  });

  it('skips an AGENTS.md that is not a regular file instead of hanging on it', async () => {
    execFileSync('mkfifo', [join(ws, 'AGENTS.md')]);
    const result = await Promise.race([readAgentsMd(localEnvironment(), ws), new Promise((resolve) => setTimeout(() => resolve('hung'), 2_000))]);
    expect(result).toBeNull();
  });
});

describe('gitSummary', () => {
  it('names the branch from the repository in which the workspace lies, without running git; nothing outside a repository', async () => {
    expect(gitSummary(ws)).toBeNull();
    execFileSync('git', ['init', '-q', '-b', 'topic'], { cwd: ws, env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' } });
    await mkdir(join(ws, 'pkg'));
    const before = process.env.DEFT_GIT;
    process.env.DEFT_GIT = '/nonexistent/git';
    try {
      expect(gitSummary(join(ws, 'pkg'))).toBe('Branch: topic');
    } finally {
      if (before === undefined) delete process.env.DEFT_GIT;
      else process.env.DEFT_GIT = before;
    }
  });
});
