import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DeftEvent, PermissionMode, SessionEvent } from '../protocol';
import { MockModelServer } from './mock-model-server';
import { defaultCapabilities } from '../main/agent/capabilities';
import { checkpointsCapability } from '../main/agent/capabilities/checkpoints/capability';
import { type CoreOptions, DeftCore } from '../main/agent/runtime/core';
import type { RetryPolicy } from '../main/agent/infra/providers/retry';
import { FileSecretStore } from '../main/agent/infra/settings/secrets';
import { cliHost } from '../main/host/hosts';

export const fastRetry: RetryPolicy = { maxAttempts: 3, baseDelayMs: 5, maxDelayMs: 20, jitter: 0, maxRetryAfterMs: 2_000 };

export async function tempDir(prefix = 'deft-test-'): Promise<string> {
  return realpath(await mkdtemp(join(tmpdir(), prefix)));
}

/**
 * The default capabilities without checkpoints: each turn of a checkpointed session runs a few git
 * processes, which tests of other capabilities do not need. Checkpoint tests pass `defaultCapabilities`.
 */
export const testCapabilities = defaultCapabilities.filter((capability) => capability !== checkpointsCapability);

/**
 * A core on a temp workspace and home, wired to a mock model server, recording every event.
 * The default permission mode is yolo (written as `permissions.defaultMode` in the temp home), so tests
 * of the loop and of tools are not held for approval; permission tests pass `permissionMode`.
 */
export async function createHarness(options: Partial<CoreOptions> & { permissionMode?: PermissionMode } = {}) {
  const { permissionMode = 'yolo', ...coreOptions } = options;
  const server = new MockModelServer();
  const baseUrl = await server.start();
  const workspace = await tempDir('deft-ws-');
  const home = await tempDir('deft-home-');
  await writeFile(join(home, 'settings.json'), JSON.stringify({ permissions: { defaultMode: permissionMode } }));
  const secrets = FileSecretStore.inHome(home);
  const events: DeftEvent[] = [];
  const core = new DeftCore({ home, workspace, host: cliHost(), secrets, retry: fastRetry, capabilities: testCapabilities, ...coreOptions });
  core.onEvent((e) => events.push(e));
  await core.handlers.setSettings({ provider: { kind: 'openai', baseUrl, model: 'mock-model', apiKey: 'test-key' } });
  const { session } = await core.handlers.createSession({});

  async function run(text: string, sessionId = session.id) {
    const { turnId } = await core.handlers.sendPrompt({ sessionId, text });
    await core.turnDone(sessionId);
    return turnId;
  }
  function sessionEvents(type?: string): SessionEvent[] {
    return events.filter((e): e is SessionEvent => 'seq' in e && (!type || e.type === type));
  }
  async function dispose() {
    await core.close();
    await server.close();
    // A task's last write can land while the folders go: retried rather than failing the test on ENOTEMPTY.
    await rm(workspace, { recursive: true, force: true, maxRetries: 5 });
    await rm(home, { recursive: true, force: true, maxRetries: 5 });
  }
  return { core, server, baseUrl, workspace, home, secrets, session, events, run, sessionEvents, dispose };
}
