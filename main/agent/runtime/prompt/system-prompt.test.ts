import { execFileSync } from 'node:child_process';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '#test-support/harness';
import { gitSummary } from './system-prompt';

let ws: string;
beforeEach(async () => {
  ws = await tempDir('deft-agents-ws-');
});
afterEach(async () => {
  await rm(ws, { recursive: true, force: true });
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
