import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '#test-support/harness';

describe("the process's private sandbox folder", () => {
  it("holds the sessions' temp folders while the process runs and is removed, with what commands left there, when it exits", async () => {
    const dir = await tempDir('deft-private-dir-');
    const workspace = join(dir, 'ws');
    const home = join(dir, 'home');
    await mkdir(workspace, { recursive: true });
    await mkdir(home, { recursive: true });
    const script = join(dir, 'app.mts');
    await writeFile(
      script,
      [
        `import { writeFileSync } from 'node:fs';`,
        `import { join } from 'node:path';`,
        `import { Sandbox } from ${JSON.stringify(join(import.meta.dirname, 'sandbox.ts'))};`,
        `const sandbox = new Sandbox({ workspace: ${JSON.stringify(workspace)}, home: ${JSON.stringify(home)}, headless: true, override: 'off' });`,
        `const session = sandbox.forSession('s1', async () => ({ allowed: false, reason: 'no' }));`,
        `await session.env();`,
        `writeFileSync(join(session.tmpDir, 'left-by-a-command.txt'), 'x');`,
        `process.stdout.write(session.tmpDir + '\\n');`,
        // Wait to be told to quit (stdin closes): the folder must still be there until then.
        `process.stdin.on('end', () => process.exit(0));`,
        `process.stdin.resume();`,
      ].join('\n'),
    );
    const app = spawn(process.execPath, ['--import', 'tsx', script], { cwd: import.meta.dirname, stdio: ['pipe', 'pipe', 'inherit'] });
    try {
      const tmpDir = await new Promise<string>((resolve, reject) => {
        let out = '';
        app.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          if (out.includes('\n')) resolve(out.trim());
        });
        app.once('exit', () => reject(new Error('the app exited before it printed its folder')));
      });
      const privateDir = dirname(dirname(dirname(tmpDir)));
      expect(privateDir).toMatch(/deft-sandbox-/);
      expect(existsSync(join(tmpDir, 'left-by-a-command.txt'))).toBe(true);
      const exited = new Promise((resolve) => app.once('exit', resolve));
      app.stdin.end();
      await exited;
      expect(existsSync(privateDir)).toBe(false);
    } finally {
      app.kill();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
