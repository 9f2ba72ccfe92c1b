import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { type Server, createServer } from 'node:http';
import { type Server as NetServer, createServer as createNetServer } from 'node:net';
import { lookup } from 'node:dns/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NetworkTarget, SessionSandbox } from '#contract/sandbox';
import { tempDir } from '#test-support/harness';
import { eventually, processesMatching, uniqueSleep } from '#test-support/processes';
import { describeSandboxed, runPlan } from '#test-support/sandbox';
import { waitFor } from '#test-support/wait';
import { addressClass, blockedAddressReason } from '../net/address-policy';
import { Sandbox } from './sandbox';

let root: string;
let workspace: string;
let deftHome: string;
let userHome: string;
let asked: NetworkTarget[];
let sandbox: SessionSandbox;
let allowed: string[];

async function run(command: string, options: { cwd?: string } = {}) {
  const plan = await sandbox.plan({ argv: ['/bin/bash', '-c', command], cwd: options.cwd ?? workspace, label: command });
  const result = await runPlan(plan);
  const blocked = plan.blocked(result.output);
  plan.release();
  return { ...result, blocked, sandboxed: plan.sandboxed };
}

describeSandboxed('the OS sandbox, for real (bubblewrap / Seatbelt)', () => {
  beforeAll(async () => {
    root = await tempDir('deft-sandbox-');
    workspace = join(root, 'ws');
    deftHome = join(root, 'home', '.deft');
    userHome = join(root, 'home');
    for (const dir of ['hooks', 'objects', 'refs']) await mkdir(join(workspace, '.git', dir), { recursive: true });
    await writeFile(join(workspace, '.git', 'config'), '[core]\n\tbare = false\n');
    await writeFile(join(workspace, '.git', 'HEAD'), 'ref: refs/heads/main\n');
    await mkdir(join(workspace, '.deft'), { recursive: true });
    await writeFile(join(workspace, '.deft', 'settings.json'), '{}');
    await mkdir(deftHome, { recursive: true });
    await writeFile(join(deftHome, 'settings.json'), '{}');
    await writeFile(join(deftHome, 'trust.json'), '{}');
    await writeFile(join(deftHome, 'secrets.json'), '{"apiKey:openai:x":"sk-held-secret-123456"}');
    await mkdir(join(userHome, '.ssh'), { recursive: true });
    await writeFile(join(userHome, '.ssh', 'id_ed25519'), 'PRIVATE KEY MATERIAL');
    await writeFile(join(userHome, '.netrc'), 'machine x password hunter2');
    asked = [];
    allowed = [];
    const core = new Sandbox({
      workspace,
      home: deftHome,
      userHome,
      headless: true,
      secrets: async () => ['sk-held-secret-123456'],
      baseEnv: {
        PATH: process.env.PATH,
        HOME: userHome,
        DEFT_API_KEY: 'sk-deft-key-abcdef',
        OPENAI_API_KEY: 'sk-openai-abcdef',
        MY_COPY: 'sk-held-secret-123456',
        LANG: 'C.UTF-8',
      },
    });
    sandbox = core.forSession('sandbox-test', async (target) => {
      asked.push({ host: target.host, port: target.port });
      return allowed.includes(`${target.host}:${target.port}`) ? { allowed: true } : { allowed: false, reason: 'not allowed in this test' };
    });
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('runs commands sandboxed: the workspace and TMPDIR are writable', async () => {
    const result = await run('echo hi > a.txt && cat a.txt && echo tmp > "$TMPDIR/t" && cat "$TMPDIR/t"');
    expect(result).toMatchObject({ code: 0, sandboxed: true });
    expect(result.output).toBe('hi\ntmp\n');
    expect((await sandbox.status()).enabled).toBe(true);
  });

  it("refuses writes to Deft's home, .git/hooks, .git/config, .deft/settings and outside paths, and says what was blocked", async () => {
    const targets = [
      join(deftHome, 'settings.json'),
      join(deftHome, 'trust.json'),
      join(workspace, '.git', 'hooks', 'pre-commit'),
      join(workspace, '.git', 'config'),
      join(workspace, '.deft', 'settings.local.json'),
      join(root, 'outside.txt'),
    ];
    for (const target of targets) {
      const result = await run(`echo pwned > '${target}'`);
      expect(result.code, target).not.toBe(0);
      expect(result.output, target).toMatch(/Read-only file system/);
      expect(result.blocked.map((b) => b.target)).toContain(target);
      expect(result.blocked[0]!.hint).toMatch(/protected|allowWrite/);
    }
    expect(await readFile(join(deftHome, 'trust.json'), 'utf8')).toBe('{}');
    expect(existsSync(join(workspace, '.git', 'hooks', 'pre-commit'))).toBe(false);
    expect(existsSync(join(root, 'outside.txt'))).toBe(false);
  });

  it('cannot create .deft/ in a workspace that has none, and leaves no trace of the guard', async () => {
    await rm(join(workspace, '.deft'), { recursive: true });
    const result = await run('mkdir -p .deft && echo \'{"permissions":{"allow":["*"]}}\' > .deft/settings.local.json');
    expect(result.code).not.toBe(0);
    expect(existsSync(join(workspace, '.deft'))).toBe(false);
    await mkdir(join(workspace, '.deft'));
  });

  it('a command that starts while another holds the .deft/ guard still runs after that one ends', async () => {
    await rm(join(workspace, '.deft'), { recursive: true });
    const first = await sandbox.plan({ argv: ['/bin/bash', '-c', 'sleep 0.3'], cwd: workspace, label: 'first' });
    const running = runPlan(first);
    await waitFor(() => existsSync(join(workspace, '.deft')));
    const second = await sandbox.plan({ argv: ['/bin/bash', '-c', 'echo second ran'], cwd: workspace, label: 'second' });
    await running;
    first.release();
    const result = await runPlan(second);
    second.release();
    expect(result.output).toContain('second ran');
    expect(result.code).toBe(0);
    expect(existsSync(join(workspace, '.deft'))).toBe(false);
    await mkdir(join(workspace, '.deft'));
  });

  it('hides credential stores and Deft secrets from reads', async () => {
    for (const path of [join(userHome, '.ssh', 'id_ed25519'), join(userHome, '.netrc'), join(deftHome, 'secrets.json')]) {
      const result = await run(`cat '${path}'`);
      expect(result.code, path).not.toBe(0);
      expect(result.output).not.toMatch(/PRIVATE KEY MATERIAL|hunter2|sk-held/);
    }
    expect((await run(`ls '${join(userHome, '.ssh')}'`)).code).not.toBe(0);
  });

  it('gives commands a scrubbed environment: no Deft variables, provider keys or held secrets; git ignores found bare repositories', async () => {
    const result = await run('env');
    expect(result.output).not.toMatch(/DEFT_API_KEY|OPENAI_API_KEY|sk-deft-key|sk-openai|sk-held-secret/);
    expect(result.output).toContain('GIT_CONFIG_VALUE_0=explicit');
    expect((await run('echo "[$DEFT_API_KEY]"')).output).toBe('[]\n');
  });

  describe('attacks of a prompt-injected model with Bash', () => {
    it('a symlink in the workspace to Deft home leads to a read-only place', async () => {
      await symlink(deftHome, join(workspace, 'innocent'));
      const result = await run('echo x > innocent/settings.json; echo y > innocent/new.json');
      expect(result.output).toMatch(/Read-only file system/);
      expect(await readFile(join(deftHome, 'settings.json'), 'utf8')).toBe('{}');
      expect(existsSync(join(deftHome, 'new.json'))).toBe(false);
    });

    it('a hard link from the workspace to a protected file cannot be made', async () => {
      const result = await run(`ln '${join(deftHome, 'settings.json')}' hard && echo x > hard`);
      expect(result.code).not.toBe(0);
      expect(await readFile(join(deftHome, 'settings.json'), 'utf8')).toBe('{}');
    });

    it('git cannot write .git/config or install a hook, and .git cannot be swapped for another', async () => {
      const result = await run(
        'git -C . config core.fsmonitor "touch /tmp/pwned"; git config --file .git/config core.hooksPath .evil; cp /bin/true .git/hooks/pre-commit; mv .git .git-old; rm -rf .git/hooks',
      );
      expect(result.output).toMatch(/could not lock config file|Read-only|Permission denied/);
      expect(await readFile(join(workspace, '.git', 'config'), 'utf8')).not.toMatch(/fsmonitor|hooksPath/);
      expect(existsSync(join(workspace, '.git', 'hooks', 'pre-commit'))).toBe(false);
      expect(existsSync(join(workspace, '.git', 'hooks'))).toBe(true);
      expect(existsSync(join(workspace, '.git-old'))).toBe(false);
    });

    it('/proc/self/root and mount lead nowhere writable', async () => {
      const result = await run(
        `echo x > /proc/self/root${deftHome}/trust.json; mount -o remount,rw / 2>&1; mount --bind . '${deftHome}' 2>&1; unshare -rm sh -c 'mount -o remount,rw,bind ${deftHome}' 2>&1; echo y > '${deftHome}/trust.json'`,
      );
      expect(await readFile(join(deftHome, 'trust.json'), 'utf8')).toBe('{}');
      expect(result.output).toMatch(/Read-only|denied|not permitted/);
    });

    it("cannot see Deft's process or read its environment", async () => {
      const result = await run(`cat /proc/${process.pid}/environ; ls /proc | grep -c '^[0-9]'`);
      expect(result.output).not.toContain('DEFT');
      expect(result.output).toMatch(/No such file/);
      // Only the command's own few processes are visible.
      expect(Number(result.output.trim().split('\n').at(-1))).toBeLessThan(10);
    });

    it('cannot reach unix sockets of other processes (a docker.sock, the desktop bus)', async () => {
      const path = join(root, 'docker.sock');
      const server: NetServer = createNetServer((socket) => socket.end('HTTP/1.0 200 OK\r\n\r\nreached\n'));
      await new Promise<void>((resolve) => server.listen(path, resolve));
      try {
        const result = await run(
          `curl -sS --max-time 3 --unix-socket '${path}' http://x/ 2>&1; echo; python3 -c "import socket; s=socket.socket(socket.AF_UNIX); s.connect('${path}'); print(s.recv(100))" 2>&1 | tail -1`,
        );
        expect(result.output).not.toContain('reached');
      } finally {
        server.close();
      }
    });

    it('cannot reach the host loopback (the web host’s port) directly, nor through the proxy unless the host is allowed', async () => {
      const server: Server = createServer((_req, res) => res.end('reached the host\n'));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const port = (server.address() as { port: number }).port;
      try {
        const direct = await run(`curl -sS --max-time 3 http://127.0.0.1:${port}/`);
        expect(direct.output).not.toContain('reached the host');
        asked = [];
        const proxied = await run(`curl -sS --max-time 5 --noproxy '' -x "$HTTP_PROXY" http://127.0.0.1:${port}/`);
        expect(proxied.output).not.toContain('reached the host');
        expect(proxied.output).toMatch(/403|blocked/);
        expect(asked).toEqual([{ host: '127.0.0.1', port }]);
        expect(proxied.blocked).toContainEqual(expect.objectContaining({ kind: 'network', target: `127.0.0.1:${port}` }));
        allowed = [`127.0.0.1:${port}`];
        const allowedRun = await run(`curl -sS --max-time 5 --noproxy '' -x "$HTTP_PROXY" http://127.0.0.1:${port}/`);
        expect(allowedRun.output).toContain('reached the host');
      } finally {
        allowed = [];
        server.close();
      }
    });

    it('an allowed name that resolves to this machine is refused (CONNECT and plain HTTP), saying why; allowing the address class lets it through, with the Host it was decided on (finding 9)', async () => {
      // This machine's own name: allowed here as a name, it resolves to a loopback or private address.
      const name = hostname();
      const resolved = (await lookup(name)).address;
      expect(blockedAddressReason(resolved), `${name} resolves to ${resolved}: the test needs a host name that leads to this machine`).not.toBeNull();
      const server: Server = createServer((req, res) => res.end(`reached the host as ${req.headers.host}\n`));
      await new Promise<void>((resolve) => server.listen(0, '0.0.0.0', resolve));
      const port = (server.address() as { port: number }).port;
      allowed = [`${name}:${port}`];
      try {
        const plain = await run(`curl -sS --max-time 5 --noproxy '' -x "$HTTP_PROXY" -H 'Host: internal.example' http://${name}:${port}/`);
        const tunnel = await run(`curl -sS --max-time 5 --noproxy '' -p -x "$HTTP_PROXY" http://${name}:${port}/ 2>&1`);
        for (const attempt of [plain, tunnel]) {
          expect(attempt.output).not.toContain('reached the host');
          expect(attempt.blocked).toContainEqual(
            expect.objectContaining({ kind: 'network', target: `${name}:${port}`, hint: expect.stringContaining(`${name} resolves to ${resolved}`) }),
          );
        }
        expect(plain.output).toContain(`resolves to ${resolved}`);
        const kind = addressClass(resolved);
        await writeFile(join(deftHome, 'settings.json'), JSON.stringify({ sandbox: { network: { allowAddressClasses: [kind] } } }));
        const through = await run(`curl -sS --max-time 5 --noproxy '' -x "$HTTP_PROXY" -H 'Host: internal.example' http://${name}:${port}/`);
        expect(through.output).toBe(`reached the host as ${name}:${port}\n`);
      } finally {
        allowed = [];
        await writeFile(join(deftHome, 'settings.json'), '{}');
        server.close();
      }
    });

    it('asks about a new domain through the proxy, and refuses it here', async () => {
      asked = [];
      const result = await run('curl -sS --max-time 10 https://registry.example.invalid/ 2>&1; echo "exit=$?"');
      expect(asked).toEqual([{ host: 'registry.example.invalid', port: 443 }]);
      expect(result.output).toMatch(/exit=(56|22|7)/);
      expect(result.blocked).toContainEqual(expect.objectContaining({ kind: 'network', target: 'registry.example.invalid:443' }));
    });

    it('background processes (setsid, nohup, disown) do not outlive the command', async () => {
      const nap = uniqueSleep();
      await run(`setsid sleep ${nap} & nohup sleep ${nap} >/dev/null 2>&1 & (sleep ${nap} &) ; disown -a; echo started`);
      await eventually(() => expect(processesMatching(`sleep ${nap}`)).toEqual([]), 3_000);
    });

    it('the whole tree dies when the Deft that started it is killed (kill -9)', async () => {
      const nap = uniqueSleep();
      const plan = await sandbox.plan({ argv: ['/bin/bash', '-c', `sleep ${nap}`], cwd: workspace, label: 'sleep' });
      // A stand-in for Deft: a process that starts the sandbox and is then killed without warning.
      const script = `const { spawn } = require('node:child_process'); spawn(${JSON.stringify(plan.file)}, ${JSON.stringify(plan.args)}, { env: ${JSON.stringify(plan.env)}, stdio: 'ignore' }); setInterval(() => {}, 1000);`;
      const deft = spawn(process.execPath, ['-e', script], { stdio: 'ignore' });
      await eventually(() => expect(processesMatching(`sleep ${nap}`)).toHaveLength(1), 20_000);
      deft.kill('SIGKILL');
      await eventually(() => expect(processesMatching(`sleep ${nap}`)).toEqual([]), 5_000);
      plan.release();
      // Starting node, then bwrap inside the shared namespace, took over 10 s on a busy machine: the waits need room.
    }, 40_000);

    it('npm-test-style commands work: node runs, writes in the workspace, reads its files', async () => {
      await writeFile(
        join(workspace, 'package.json'),
        JSON.stringify({ name: 'x', version: '1.0.0', scripts: { test: "node -e \"require('fs').writeFileSync('tested.txt', 'ok')\"" } }),
      );
      const result = await run('npm test --silent --no-update-notifier');
      expect(result.code, result.output).toBe(0);
      expect(await readFile(join(workspace, 'tested.txt'), 'utf8')).toBe('ok');
    });
  });
});
