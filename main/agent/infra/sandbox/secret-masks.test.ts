import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { expect, it } from 'vitest';
import { SECRET_PLACES } from '../policies/secret-places';
import { workspaceSessionsDir } from '../sessions/store';
import { tempDir } from '#test-support/harness';
import { describeSandboxed, runPlan } from '#test-support/sandbox';
import { Sandbox } from './sandbox';

async function put(path: string, content: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, content);
}

describeSandboxed('the one list of secrets: a sandboxed command reads none of them (finding 6)', () => {
  it("every entry of the list in the home folder, and in Deft's home its secrets, MCP file, checkpoint stores and other workspaces' sessions", async () => {
    const root = await tempDir('deft-secret-masks-');
    const userHome = join(root, 'home');
    const deftHome = join(userHome, '.deft');
    const workspace = join(root, 'ws');
    await mkdir(workspace, { recursive: true });
    // One file per entry (inside a folder entry, a file in it), each holding a secret.
    const secrets = SECRET_PLACES.map((place) => join(userHome, place.dir ? `${place.path}/stored-secret` : place.path));
    const deft = [
      join(deftHome, 'secrets.json'),
      join(deftHome, 'mcp.json'),
      join(deftHome, 'checkpoints', 'other-1234.git', 'HEAD'),
      join(workspaceSessionsDir(deftHome, '/elsewhere/project'), 's1', 'log.jsonl'),
    ];
    const own = join(workspaceSessionsDir(deftHome, workspace), 's1', 'log.jsonl');
    for (const path of [...secrets, ...deft, own]) await put(path, 'xyzzy-token\n');
    const sandbox = new Sandbox({ workspace, home: deftHome, userHome, headless: true, baseEnv: { PATH: process.env.PATH, HOME: userHome } }).forSession(
      'secrets-test',
      async () => ({ allowed: false, reason: 'no network in this test' }),
    );
    const list = join(workspace, 'paths.txt'); // the workspace: the rest of /tmp is covered inside
    await writeFile(list, [...secrets, ...deft, own].join('\n') + '\n');
    const script = `while IFS= read -r f; do if grep -q xyzzy-token "$f" 2>/dev/null; then echo "READ $f"; fi; done < '${list}'`;
    const plan = await sandbox.plan({ argv: ['/bin/bash', '-c', script], cwd: workspace, label: 'read secrets' });
    expect(plan.sandboxed).toBe(true);
    const { output } = await runPlan(plan, { timeoutMs: 30_000 });
    plan.release();
    const read = output
      .split('\n')
      .filter((line) => line.startsWith('READ '))
      .map((line) => line.slice(5));
    // Only this workspace's own session log (a hook reads its transcript).
    expect(read).toEqual([own]);
  });
});
