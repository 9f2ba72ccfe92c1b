import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Harness, callTool, createTasksHarness } from '#test-support/shell-harness';

// The environment commands get is scrubbed with or without the OS sandbox: these run with it off, so
// they hold on a machine that has none (the string-level and environment walls alone).
let h: Harness | undefined;
afterEach(async () => {
  await h?.dispose();
  h = undefined;
});

describe('finding 3: a folder shaped like a git repository cannot run code through `git status`', () => {
  it('git refuses the planted repository, and its core.fsmonitor command never runs', async () => {
    h = await createTasksHarness({}, { sandbox: 'off' });
    const marker = join(h.workspace, 'PWNED');
    const evil = join(h.workspace, 'evil');
    await mkdir(join(evil, 'objects'), { recursive: true });
    await mkdir(join(evil, 'refs'), { recursive: true });
    await writeFile(join(evil, 'HEAD'), 'ref: refs/heads/main\n');
    await writeFile(join(evil, 'config'), `[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = ..\n\tfsmonitor = "touch '${marker}'; false"\n`);
    const { content } = await callTool(h, 'Bash', { command: 'git status', cwd: 'evil' });
    expect(existsSync(marker)).toBe(false);
    expect(content).toMatch(/safe\.bareRepository/);
  });
});

describe("finding 5: commands do not inherit Deft's keys", () => {
  it('echo $DEFT_API_KEY and a provider key print nothing', async () => {
    const saved = { DEFT_API_KEY: process.env.DEFT_API_KEY, OPENAI_API_KEY: process.env.OPENAI_API_KEY };
    process.env.DEFT_API_KEY = 'sk-deft-key-from-env-1234';
    process.env.OPENAI_API_KEY = 'sk-openai-key-from-env-1234';
    try {
      h = await createTasksHarness({}, { sandbox: 'off' });
      const { content } = await callTool(h, 'Bash', { command: 'echo "[$DEFT_API_KEY][$OPENAI_API_KEY]"; env | grep -c sk- || true' });
      expect(content).toContain('[][]');
      expect(content).not.toContain('sk-');
    } finally {
      for (const [key, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
    }
  });
});
