import { afterEach, describe, expect, it } from 'vitest';
import { TestTerminals } from '#test-support/acp-terminals';
import { tempDir } from '#test-support/harness';
import type { ExecProcess } from '#contract/environment';
import { processMarkers } from '../../processes/process-table';
import { localEnvironment } from '../local/local-environment';
import { type ClientTerminals, clientTerminalEnvironment, newPart } from './client-terminal-environment';

let terminals: TestTerminals;
afterEach(() => terminals?.close());

/** TestTerminals as the ACP host would hand them over. */
function editor(t: TestTerminals, fail = false): ClientTerminals {
  return {
    async create(request) {
      if (fail) throw new Error('no terminals today');
      const { terminalId } = t.create({ sessionId: 's', ...request });
      return {
        id: terminalId,
        output: async () => t.output(terminalId),
        waitForExit: () => t.waitForExit(terminalId),
        kill: async () => t.kill(terminalId),
        release: async () => t.release(terminalId),
      };
    },
  };
}

const read = async (p: ExecProcess) => {
  let out = '';
  p.stdout.on('data', (c: Buffer) => (out += c.toString()));
  const exit = await p.exit;
  return { out, exit };
};

describe('clientTerminalEnvironment', () => {
  it('runs a tool call’s command in the editor’s terminal with exactly its environment, and knows its pid', async () => {
    terminals = new TestTerminals({ EDITOR_TOKEN: 'secret' });
    const env = clientTerminalEnvironment(localEnvironment(), () => editor(terminals));
    const cwd = await tempDir('deft-term-');
    const p = env.exec({
      file: '/bin/sh',
      args: ['-c', 'echo "[$EDITOR_TOKEN][$MINE]"; sleep 0.5; echo "$PWD"; exit 4'],
      cwd,
      env: { PATH: process.env.PATH!, MINE: 'yes', DEFT_TASK_ID: 'bash-t1' },
      marker: 'DEFT_TASK_ID=bash-t1',
      toolCallId: 'call_1',
    });
    await p.started;
    expect(p.pid).toBeGreaterThan(1);
    const { out, exit } = await read(p);
    expect(out).toBe(`[][yes]\n${cwd}\n`);
    expect(exit).toEqual({ code: 4, signal: null });
    expect(terminals.created).toHaveLength(1);
    expect(terminals.released).toEqual(['term-1']);
  });

  it('kills the whole tree it started, and leaves other processes and requests without a tool call to this machine', async () => {
    terminals = new TestTerminals();
    const env = clientTerminalEnvironment(localEnvironment(), () => editor(terminals));
    const cwd = await tempDir('deft-term-');
    const plain = await read(env.exec({ file: 'echo', args: ['local'], cwd, env: { PATH: process.env.PATH! } }));
    expect(plain.out).toBe('local\n');
    expect(terminals.created).toHaveLength(0);

    const marker = 'DEFT_TASK_ID=bash-t2';
    const p = env.exec({
      file: '/bin/sh',
      args: ['-c', 'sleep 30 & sleep 30; wait'],
      cwd,
      env: { PATH: process.env.PATH!, DEFT_TASK_ID: 'bash-t2' },
      marker,
      toolCallId: 'c',
    });
    await p.started;
    expect(p.pid).toBeGreaterThan(1);
    await new Promise((r) => setTimeout(r, 300));
    expect([...(await processMarkers('DEFT_TASK_ID', 0)).values()].filter((m) => m === marker).length).toBeGreaterThanOrEqual(2);
    await p.kill(1_000);
    const { exit } = await read(p);
    expect(exit.code === 0).toBe(false);
    expect([...(await processMarkers('DEFT_TASK_ID', 0)).values()]).not.toContain(marker);
  });

  it('runs the command on this machine when the editor cannot make a terminal', async () => {
    terminals = new TestTerminals();
    const env = clientTerminalEnvironment(localEnvironment(), () => editor(terminals, true));
    const cwd = await tempDir('deft-term-');
    const p = env.exec({
      file: 'echo',
      args: ['fallback'],
      cwd,
      env: { PATH: process.env.PATH!, DEFT_TASK_ID: 'x' },
      marker: 'DEFT_TASK_ID=x',
      toolCallId: 'c',
    });
    const { out, exit } = await read(p);
    expect(out).toBe('fallback\n');
    expect(exit.code).toBe(0);
  });

  it('takes only what is new from output the editor cut at the front', () => {
    expect(newPart('abc', 'abcdef')).toBe('def');
    expect(newPart('0123456789', '6789XY')).toBe('XY');
    expect(newPart('', 'all')).toBe('all');
    expect(newPart('y\ny\ny\n', 'y\ny\nz\n')).toBe('z\n');
    expect(newPart('abc', 'xyz')).toBe('xyz');
  });
});
