import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach, expect, it, vi } from 'vitest';
import { tempDir } from '#test-support/harness';
import { runPlan } from '#test-support/sandbox';
import type * as Availability from './availability';
import { Sandbox } from './sandbox';

// Issue 36: a run with the sandbox turned off starts no bubblewrap probe (`bwrap … true`) — not for its
// status, not before each command. The probe runs once the sandbox is meant to be used.
const probes = vi.hoisted(() => ({ count: 0 }));
vi.mock('./availability', async (importOriginal) => {
  const real = await importOriginal<typeof Availability>();
  return {
    ...real,
    sandboxSupport: (...args: Parameters<typeof real.sandboxSupport>) => {
      probes.count++;
      return real.sandboxSupport(...args);
    },
  };
});

let workspace: string;
let home: string;
beforeEach(async () => {
  probes.count = 0;
  const root = await tempDir('deft-probe-');
  workspace = join(root, 'ws');
  home = join(root, '.deft');
  await mkdir(workspace, { recursive: true });
  await mkdir(home, { recursive: true });
});

async function runTrue(sandbox: Sandbox) {
  const session = sandbox.forSession('s', async () => ({ allowed: false, reason: 'no network in this test' }));
  const status = await session.status();
  const plan = await session.plan({ argv: ['/bin/sh', '-c', 'echo ran'], cwd: workspace, label: 'echo' });
  const result = await runPlan(plan);
  plan.release();
  return { status, sandboxed: plan.sandboxed, output: result.output };
}

it('--sandbox off: the status and a command start no probe', async () => {
  const ran = await runTrue(new Sandbox({ workspace, home, userHome: home, override: 'off', headless: true }));
  expect(ran.status).toMatchObject({ enabled: false });
  expect(ran.sandboxed).toBe(false);
  expect(ran.output).toContain('ran');
  expect(probes.count).toBe(0);
});

it('"sandbox.enabled": false in the settings: no probe either; turned on, the probe runs', async () => {
  await writeFile(join(home, 'settings.json'), JSON.stringify({ sandbox: { enabled: false } }));
  const ran = await runTrue(new Sandbox({ workspace, home, userHome: home, headless: true }));
  expect(ran.status).toMatchObject({ enabled: false, reason: 'Turned off by "sandbox.enabled": false in settings.' });
  expect(ran.sandboxed).toBe(false);
  expect(probes.count).toBe(0);
  await writeFile(join(home, 'settings.json'), JSON.stringify({ sandbox: { enabled: true } }));
  await runTrue(new Sandbox({ workspace, home, userHome: home, headless: true }));
  expect(probes.count).toBeGreaterThan(0);
});
