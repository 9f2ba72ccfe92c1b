import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { MockModelServer } from '../test-support/mock-model-server';
import { tempDir } from '../test-support/harness';
import { ensureBuild, root } from '../scripts/ensure-build.mjs';
import { generateSession } from './generate-session';
import { type BenchResult, median } from './types';

const MiB = 1024 * 1024;

/** The process's peak resident memory so far (Linux), in bytes; 0 where /proc is not there or it has exited. */
function peakRss(pid: number): number {
  try {
    const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb ? Number(kb) * 1024 : 0;
  } catch {
    return 0;
  }
}

/**
 * Headless `deft run --continue` (issue 19): the built CLI resumes a session of 5,000 messages (and of 2, the
 * baseline) and sends one prompt to a mock model. Measured: the time from the start of the process to the
 * model's first request, and the process's peak RSS up to the end of the answer.
 */
export default async function cliContinue(): Promise<BenchResult[]> {
  ensureBuild();
  const server = new MockModelServer();
  await server.start();
  try {
    const measure = async (messages: number) => {
      const home = await tempDir('deft-bench-home-');
      const workspace = await tempDir('deft-bench-ws-');
      await generateSession({ home, workspace, id: `bench-${messages}`, turns: messages / 2, toolCalls: messages > 2 });
      let peak = 0;
      const firstRequest = await median(3, async () => {
        const started = performance.now();
        const child = spawn(
          process.execPath,
          [join(root, 'bin/deft.mjs'), 'run', '--base-url', server.baseUrl, '--model', 'mock-model', '--continue', 'one more question'],
          {
            cwd: workspace,
            env: { ...process.env, DEFT_HOME: home },
            stdio: ['ignore', 'ignore', 'ignore'],
          },
        );
        let requestAt = 0;
        server.fallback = () => {
          requestAt = performance.now() - started;
          peak = Math.max(peak, peakRss(child.pid!));
          // A short answer after a pause, so the peak is read again while the process still runs.
          return { chunks: [{ text: 'An answer.' }, { finish: 'stop' }], delayMs: 200 };
        };
        const poll = setInterval(() => (peak = Math.max(peak, peakRss(child.pid!))), 20);
        const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
        clearInterval(poll);
        if (code !== 0 || !requestAt) throw new Error(`deft run --continue exited with ${code} before the model was asked`);
        return requestAt;
      });
      return { firstRequest, peak };
    };
    const small = await measure(2);
    const large = await measure(5_000);
    return [
      {
        name: 'headless `deft run --continue`, 5,000 messages: start to first model request',
        value: large.firstRequest,
        unit: 'ms',
        baseline: { name: 'a 2-message session', value: small.firstRequest },
      },
      {
        name: 'headless `deft run --continue`, 5,000 messages: peak RSS',
        value: large.peak / MiB,
        unit: 'MiB',
        baseline: { name: 'a 2-message session', value: small.peak / MiB },
      },
    ];
  } finally {
    await server.close();
  }
}
