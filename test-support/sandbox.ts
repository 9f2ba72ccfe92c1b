import { spawn } from 'node:child_process';
import { describe, it } from 'vitest';
import type { SpawnPlan } from '../main/agent/contract/sandbox';
import { sandboxSupport } from '../main/agent/infra/sandbox/availability';

/**
 * Tests that need the real OS sandbox: they run wherever bubblewrap (or Seatbelt) works. `npm test` and
 * .ci/run install bubblewrap and socat, so a machine without a sandbox fails loudly, saying how to get one,
 * instead of skipping.
 */
export function describeSandboxed(name: string, body: () => void): void {
  const support = sandboxSupport();
  if (support.kind) {
    describe(name, body);
    return;
  }
  describe(name, () => {
    it('needs the OS sandbox, which this machine lacks', () => {
      throw new Error(`No OS sandbox here: ${support.reason ?? 'unknown'} ${support.install ?? ''}`);
    });
  });
}

/** Run a planned spawn to the end: exit code and output (stdout and stderr together). */
export function runPlan(plan: SpawnPlan, options: { timeoutMs?: number } = {}): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(plan.file, plan.args, { env: plan.env, cwd: plan.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 20_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}
