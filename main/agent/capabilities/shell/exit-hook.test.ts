import { spawn } from 'node:child_process';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '#test-support/harness';
import { eventually, processesMatching, uniqueSleep } from '#test-support/processes';

describe('when the process exits without closing anything', () => {
  it('kills what its jobs left running: the group and processes that left it (found by marker)', async () => {
    const dir = await tempDir('deft-exit-');
    const inGroup = uniqueSleep();
    const escaped = uniqueSleep();
    const script = join(dir, 'app.mts');
    const command = `(setsid sleep ${escaped} > /dev/null 2>&1 &); sleep ${inGroup}`;
    await writeFile(
      script,
      [
        `import { ShellJob } from ${JSON.stringify(join(import.meta.dirname, 'shell-job.ts'))};`,
        `import { localEnvironment } from ${JSON.stringify(join(import.meta.dirname, '../../infra/environment/local/local-environment.ts'))};`,
        `await ShellJob.start({ environment: localEnvironment(), id: 'bash-exithook', command: ${JSON.stringify(command)}, cwd: ${JSON.stringify(dir)}, logPath: ${JSON.stringify(join(dir, 'out.log'))} });`,
        // Quit abruptly when told to (stdin closes): no close(), no kill: only the exit hook runs.
        `process.stdin.on('end', () => process.exit(0));`,
        `process.stdin.resume();`,
      ].join('\n'),
    );
    const app = spawn(process.execPath, ['--import', 'tsx', script], { cwd: import.meta.dirname, stdio: ['pipe', 'ignore', 'inherit'] });
    try {
      await eventually(() => {
        expect(processesMatching(`sleep ${inGroup}`)).toHaveLength(1);
        expect(processesMatching(`sleep ${escaped}`)).toHaveLength(1);
      }, 15_000);
      const exited = new Promise((resolve) => app.once('exit', resolve));
      app.stdin.end();
      await exited;
      await eventually(() => {
        expect(processesMatching(`sleep ${inGroup}`)).toEqual([]);
        expect(processesMatching(`sleep ${escaped}`)).toEqual([]);
      }, 2_000);
    } finally {
      app.kill('SIGKILL');
      await rm(dir, { recursive: true, force: true });
    }
  });
});
