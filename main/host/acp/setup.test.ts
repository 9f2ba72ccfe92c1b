import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '#test-support/harness';
import { MockModelServer } from '#test-support/mock-model-server';
import { runSetup } from './setup';
import type { CoreSettings } from './workspaces';

// `deft acp --setup`, the terminal sign-in an editor runs: questions on the terminal, answers typed back.

let server: MockModelServer;
let home: string;
beforeEach(async () => {
  server = new MockModelServer();
  await server.start();
  home = await tempDir('deft-acp-setup-');
});
afterEach(() => server.close());

const settingsFor = (): CoreSettings => ({ env: { DEFT_HOME: home }, providerOverrides: {}, mcpConfigs: [], stderr: () => {}, version: '0' });

/** Run the setup with these lines typed, one after each question; returns the exit code and what it printed. */
async function setup(answers: string[]): Promise<{ code: number; printed: string }> {
  const input = new PassThrough();
  const output = new PassThrough();
  let printed = '';
  let next = 0;
  output.on('data', (chunk: Buffer) => {
    printed += chunk.toString();
    // A question ends with ": " and waits for its line; with no answer left, the input ends (the terminal closed).
    if (!printed.endsWith(': ')) return;
    if (next < answers.length) input.write(`${answers[next++]}\n`);
    else input.end();
  });
  const code = await runSetup({ input, output }, settingsFor());
  return { code, printed };
}

describe('deft acp --setup', () => {
  it('asks for the provider, tests it with one request and saves it where the window’s Settings do', async () => {
    const { code, printed } = await setup(['openai', server.baseUrl, 'mock-model', 'sk-typed-key']);
    expect(code).toBe(0);
    expect(printed).toContain('mock-model answered in');
    expect(printed).toContain('Saved.');
    // The key was not echoed.
    expect(printed).not.toContain('sk-typed-key');
    const saved = JSON.parse(await readFile(join(home, 'settings.json'), 'utf8'));
    expect(saved.provider).toMatchObject({ kind: 'openai', baseUrl: server.baseUrl, model: 'mock-model' });
    expect(await readFile(join(home, 'secrets.json'), 'utf8')).toContain('sk-typed-key');
    expect(server.requests.at(-1)?.headers.authorization).toBe('Bearer sk-typed-key');
  });

  it('saves nothing when the answers are not valid, when the test fails and the user says no, or when input ends', async () => {
    expect((await setup(['openai', 'not a url', 'mock-model', ''])).printed).toContain('Not saved: Base URL must be a full URL');
    const refused = await setup(['openai', 'http://127.0.0.1:9/v1', 'mock-model', '', 'n']);
    expect(refused.code).toBe(1);
    expect(refused.printed).toContain('it failed:');
    expect(refused.printed).toContain('Not saved.');
    const cut = await setup(['openai']);
    expect(cut.code).toBe(1);
    expect(cut.printed).toContain('Setup cancelled: nothing was saved.');
    await expect(readFile(join(home, 'settings.json'), 'utf8')).rejects.toThrow();
  });
});
