import { execFileSync } from 'node:child_process';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '#test-support/harness';
import { RuleStore } from './rule-files';
import { workspacePlace } from '#infra/environment/workspace-place';

let home: string;
let workspace: string;
let store: RuleStore;

beforeEach(async () => {
  home = await tempDir('deft-rules-home-');
  workspace = await tempDir('deft-rules-ws-');
  await mkdir(join(workspace, '.deft'));
  store = new RuleStore(home, workspacePlace(workspace));
  await store.trust.trust();
});

const write = (path: string, value: unknown) => writeFile(path, typeof value === 'string' ? value : JSON.stringify(value));

describe('RuleStore', () => {
  it('merges the user, project and local files', async () => {
    await write(join(home, 'settings.json'), { provider: { kind: 'openai' }, permissions: { allow: ['Read'], deny: ['Bash(rm *)'] } });
    await write(join(workspace, '.deft/settings.json'), { permissions: { ask: ['Write(src/**)'] } });
    await write(join(workspace, '.deft/settings.local.json'), { permissions: { allow: ['Bash(npm test)'], defaultMode: 'acceptEdits' } });
    const { loaded } = await store.load();
    expect(loaded.rules.map((r) => `${r.source}:${r.decision}:${r.pattern}`)).toEqual([
      'user:deny:Bash(rm *)',
      'user:allow:Read',
      'project:ask:Write(src/**)',
      'local:allow:Bash(npm test)',
    ]);
    expect(loaded.problems).toEqual([]);
    expect(loaded.defaultMode).toBe('accept-edits');
  });

  it('reports invalid rules with their file and rule, and keeps the valid ones', async () => {
    const project = join(workspace, '.deft/settings.json');
    await write(project, { permissions: { allow: ['Bash(npm test', 'Read', 7], deny: 'Bash', defaultMode: 'sometimes' } });
    const { loaded } = await store.load();
    expect(loaded.rules.map((r) => r.pattern)).toEqual(['Read']);
    expect(loaded.problems).toEqual([
      { file: project, message: expect.stringContaining('"permissions.deny"') },
      { file: project, rule: 'Bash(npm test', message: expect.stringMatching(/Invalid allow rule in .*settings\.json: the argument is not closed/) },
      { file: project, rule: '7', message: expect.stringContaining('must be a string') },
      { file: project, message: expect.stringContaining('defaultMode') },
    ]);
  });

  it('reports a file that is not JSON instead of ignoring it', async () => {
    await write(join(home, 'settings.json'), '{ "permissions": { "allow": [ ');
    const { loaded } = await store.load();
    expect(loaded.problems).toEqual([{ file: join(home, 'settings.json'), message: expect.stringContaining('is not valid JSON') }]);
  });

  it('reports a settings file that is a pipe instead of blocking on it', async () => {
    const project = join(workspace, '.deft/settings.json');
    execFileSync('mkfifo', [project]);
    await write(join(workspace, '.deft/settings.local.json'), { permissions: { allow: ['Read'] } });
    const { loaded } = await store.load();
    expect(loaded.rules.map((r) => r.pattern)).toEqual(['Read']);
    expect(loaded.problems).toEqual([{ file: project, message: expect.stringContaining('is not a regular file') }]);
  }, 10_000);

  it('notices edits on disk and says when the rules changed', async () => {
    expect((await store.load()).changed).toBe(false);
    await write(join(workspace, '.deft/settings.json'), { permissions: { allow: ['Read'] } });
    const next = await store.load();
    expect(next.changed).toBe(true);
    expect(next.loaded.rules).toHaveLength(1);
    expect((await store.load()).changed).toBe(false);
  });

  it('adds "always allow" rules to settings.local.json, keeping everything else', async () => {
    const local = join(workspace, '.deft/settings.local.json');
    await write(local, { theme: 'dark', permissions: { allow: ['Read'], deny: ['Bash(curl *)'] } });
    await store.addLocalAllowRule('Write(/ws/a.txt)');
    await store.addLocalAllowRule('Write(/ws/a.txt)');
    expect(JSON.parse(await readFile(local, 'utf8'))).toEqual({ theme: 'dark', permissions: { allow: ['Read', 'Write(/ws/a.txt)'], deny: ['Bash(curl *)'] } });
    expect((await store.load()).loaded.rules.map((r) => r.pattern)).toContain('Write(/ws/a.txt)');
  });

  it('refuses to overwrite a local file it cannot parse', async () => {
    const local = join(workspace, '.deft/settings.local.json');
    await write(local, '{oops');
    await expect(store.addLocalAllowRule('Read')).rejects.toThrow(/not valid JSON/);
    expect(await readFile(local, 'utf8')).toBe('{oops');
  });
});

describe('a workspace the user has not trusted', () => {
  beforeEach(async () => {
    await rm(join(home, 'trust.json'));
    store = new RuleStore(home, workspacePlace(workspace));
  });

  it('keeps its deny and ask rules but not its allow rules or a wider default mode, and says so', async () => {
    const project = join(workspace, '.deft/settings.json');
    const local = join(workspace, '.deft/settings.local.json');
    await write(join(home, 'settings.json'), { permissions: { allow: ['Read'] } });
    await write(project, { permissions: { allow: ['*'], deny: ['Bash(curl *)'], ask: ['Glob'], defaultMode: 'bypassPermissions' } });
    await write(local, { permissions: { allow: ['Bash(npm test)'], defaultMode: 'acceptEdits' } });
    const { loaded } = await store.load();
    expect(loaded.rules.map((r) => `${r.source}:${r.decision}:${r.pattern}`)).toEqual(['user:allow:Read', 'project:deny:Bash(curl *)', 'project:ask:Glob']);
    expect(loaded.defaultMode).toBeUndefined();
    expect(loaded.trust).toEqual({
      trusted: false,
      ignored: [`allow * (${project})`, `defaultMode yolo (${project})`, `allow Bash(npm test) (${local})`, `defaultMode accept-edits (${local})`],
    });
  });

  it('uses an allow rule the user added with "always allow", and everything once trusted', async () => {
    await write(join(workspace, '.deft/settings.json'), { permissions: { allow: ['Bash(make *)'], defaultMode: 'yolo' } });
    await store.addLocalAllowRule('Write(src/**)');
    let { loaded } = await store.load();
    expect(loaded.rules.map((r) => r.pattern)).toEqual(['Write(src/**)']);
    expect(loaded.trust.ignored).toHaveLength(2);
    await store.trust.trust();
    ({ loaded } = await store.load());
    expect(loaded.rules.map((r) => r.pattern).sort()).toEqual(['Bash(make *)', 'Write(src/**)']);
    expect(loaded.defaultMode).toBe('yolo');
    expect(loaded.trust).toEqual({ trusted: true, ignored: [] });
    expect(JSON.parse(await readFile(join(home, 'trust.json'), 'utf8'))).toEqual({
      folders: { [workspace]: { approvedRules: ['Write(src/**)'], trusted: true } },
    });
  });

  it('trusts nothing when trust.json is damaged', async () => {
    await write(join(home, 'trust.json'), '{"folders": ');
    await write(join(workspace, '.deft/settings.json'), { permissions: { allow: ['Read'] } });
    expect((await store.load()).loaded.rules).toEqual([]);
  });
});
