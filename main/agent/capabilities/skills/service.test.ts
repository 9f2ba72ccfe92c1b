import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '#test-support/harness';
import type { Environment } from '#contract/environment';
import { localEnvironment } from '#infra/environment/local/local-environment';
import type { SkillCatalog } from './catalog';
import { SkillService, type SkillServiceOptions } from './service';
import { put, skillMd } from '#test-support/skills';

let base: string;
let workspace: string;
let home: string;
let userHome: string;
let service: SkillService | null = null;

beforeEach(async () => {
  base = await tempDir('deft-skill-svc-');
  workspace = join(base, 'ws');
  home = join(base, 'deft-home');
  userHome = join(base, 'me');
  await Promise.all([mkdir(workspace), mkdir(home), mkdir(userHome)]);
});
afterEach(async () => {
  await service?.close();
  service = null;
  await rm(base, { recursive: true, force: true });
});

async function start(options: Partial<SkillServiceOptions> = {}): Promise<SkillService> {
  service = new SkillService({ workspace, home, userHome, builtinDir: null, ...options });
  await service.watchReady();
  return service;
}

/** Resolves with the first catalog that satisfies `test`. */
function changed(svc: SkillService, test: (catalog: SkillCatalog) => boolean, timeoutMs = 5_000): Promise<SkillCatalog> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no matching catalog within ${timeoutMs} ms; have ${svc.catalog.skills.map((s) => s.name).join(', ')}`)),
      timeoutMs,
    );
    const off = svc.onChange((catalog) => {
      if (!test(catalog)) return;
      clearTimeout(timer);
      off();
      resolve(catalog);
    });
  });
}

const names = (catalog: SkillCatalog) => catalog.skills.map((s) => s.name);

describe('SkillService live reload', () => {
  it('notices skills added, edited, renamed and deleted in the workspace root', async () => {
    const root = join(workspace, '.deft', 'skills');
    await put(root, 'first/SKILL.md', skillMd('first'));
    const svc = await start();
    expect(names(svc.catalog)).toEqual(['first']);
    const v1 = svc.catalog.version;

    let next = changed(svc, (c) => names(c).includes('second'));
    await put(root, 'second/SKILL.md', skillMd('second'));
    expect(names(await next)).toEqual(['first', 'second']);

    next = changed(svc, (c) => c.get('second')?.description === 'Edited.');
    await put(root, 'second/SKILL.md', skillMd('second', 'Edited.'));
    await next;

    next = changed(svc, (c) => names(c).includes('renamed'));
    await rename(join(root, 'second'), join(root, 'third'));
    await put(root, 'third/SKILL.md', skillMd('renamed'));
    expect(names(await next)).toEqual(['first', 'renamed']);

    next = changed(svc, (c) => !names(c).includes('first'));
    await rm(join(root, 'first'), { recursive: true });
    expect(names(await next)).toEqual(['renamed']);
    expect(svc.catalog.version).toBeGreaterThan(v1);
    expect(svc.listing()).toContain('- renamed: The renamed skill.');
  });

  it('notices a skills folder created after start, and the user root too', async () => {
    const svc = await start();
    expect(
      svc
        .payload()
        .roots.filter((r) => r.watched)
        .map((r) => r.path),
    ).toEqual([
      join(workspace, '.deft/skills'),
      join(workspace, '.agents/skills'),
      join(workspace, '.claude/skills'),
      join(workspace, '.claude/commands'),
      join(home, 'skills'),
      join(userHome, '.agents/skills'),
      join(userHome, '.claude/skills'),
      join(userHome, '.claude/commands'),
    ]);
    let next = changed(svc, (c) => names(c).includes('late'));
    await put(workspace, '.agents/skills/late/SKILL.md', skillMd('late'));
    expect((await next).get('late')!.source).toBe('workspace');

    next = changed(svc, (c) => names(c).includes('personal'));
    await put(userHome, '.agents/skills/personal/SKILL.md', skillMd('personal'));
    expect((await next).get('personal')!.source).toBe('user');
  });

  it('keeps watching correctly when a skill folder stops being one (its inside becomes skills of their own)', async () => {
    const root = join(workspace, '.deft', 'skills');
    await put(root, 'outer/SKILL.md', skillMd('outer'));
    await put(root, 'outer/inner/SKILL.md', skillMd('inner'));
    await put(root, 'outer/inner/scripts/run.sh', 'echo');
    const svc = await start();
    expect(names(svc.catalog)).toEqual(['outer']);
    let next = changed(svc, (c) => names(c).join() === 'inner');
    await rm(join(root, 'outer/SKILL.md'));
    await next;
    // Give the watcher a moment to take in the folders it now has to watch.
    await new Promise((r) => setTimeout(r, 300));
    next = changed(svc, (c) => c.get('inner')?.description === 'Inner, edited.');
    await put(root, 'outer/inner/SKILL.md', skillMd('inner', 'Inner, edited.'));
    await next;
  });

  it('reports a broken edit in the skipped list, and recovers when it is fixed', async () => {
    const root = join(home, 'skills');
    await put(root, 'tool/SKILL.md', skillMd('tool'));
    const svc = await start();
    let next = changed(svc, (c) => c.skipped.length === 1);
    await put(root, 'tool/SKILL.md', '---\nname: tool\n---\nno description');
    const broken = await next;
    expect(broken.skills).toEqual([]);
    expect(broken.skipped[0]).toMatchObject({ file: join(root, 'tool/SKILL.md'), source: 'user', reason: expect.stringContaining('no description') });
    next = changed(svc, (c) => c.skipped.length === 0 && names(c).includes('tool'));
    await put(root, 'tool/SKILL.md', skillMd('tool'));
    await next;
  });

  it('does not announce a change when nothing a user or the model sees changed', async () => {
    const root = join(workspace, '.deft', 'skills');
    await put(root, 'tool/SKILL.md', skillMd('tool'));
    const svc = await start();
    const version = svc.catalog.version;
    let announced = 0;
    svc.onChange(() => announced++);
    await put(root, 'tool/scripts/run.sh', 'echo hi');
    const next = changed(svc, (c) => names(c).includes('marker'));
    await put(root, 'marker/SKILL.md', skillMd('marker'));
    await next;
    expect(announced).toBe(1);
    expect(svc.catalog.version).toBe(version + 1);
  });

  it('reads extra folders and explicit folders from settings; reports a malformed setting', async () => {
    await put(base, 'team/shared/SKILL.md', skillMd('shared'));
    await put(workspace, '.deft/skills/local/SKILL.md', skillMd('local'));
    await writeFile(join(home, 'settings.json'), JSON.stringify({ skills: { extraDirs: [join(base, 'team')] } }));
    const svc = await start({ watch: false });
    expect(svc.catalog.skills.map((s) => `${s.name}:${s.source}`)).toEqual(['local:workspace', 'shared:extra']);

    await writeFile(join(home, 'settings.json'), JSON.stringify({ skills: { dirs: [join(base, 'team')] } }));
    await svc.rescan();
    expect(svc.catalog.skills.map((s) => `${s.name}:${s.source}`)).toEqual(['shared:explicit']);

    await writeFile(join(home, 'settings.json'), JSON.stringify({ skills: { extraDirs: 'not a list' } }));
    await svc.rescan();
    expect(svc.payload().skipped[0]).toMatchObject({
      file: join(home, 'settings.json'),
      reason: expect.stringContaining('the "skills" setting was ignored (extraDirs:'),
    });
  });

  it('reads a remote workspace’s folders through its Environment, never watched, and again on refreshRemote', async () => {
    // The "remote machine" shows `there` at the workspace's path; this machine's folder at that path has another skill.
    const there = join(base, 'there');
    await put(there, '.deft/skills/far/SKILL.md', skillMd('far'));
    await put(workspace, '.deft/skills/near/SKILL.md', skillMd('near'));
    await put(home, 'skills/mine/SKILL.md', skillMd('mine'));
    const local = localEnvironment();
    const into = (p: string) => (p === workspace || p.startsWith(`${workspace}/`) ? there + p.slice(workspace.length) : p);
    const back = (p: string) => (p === there || p.startsWith(`${there}/`) ? workspace + p.slice(there.length) : p);
    const remote = {
      kind: 'ssh',
      stat: (p: string) => local.stat(into(p)),
      realpath: async (p: string) => back(await local.realpath(into(p))),
      readText: (p: string) => local.readText(into(p)),
      readdir: (p: string) => local.readdir(into(p)),
    } as unknown as Environment;
    const svc = await start({ environment: remote });
    expect(svc.catalog.skills.map((s) => `${s.name}:${s.source}`)).toEqual(['far:workspace', 'mine:user']);
    expect(svc.catalog.get('far')).toMatchObject({ remote: true, file: join(workspace, '.deft/skills/far/SKILL.md') });
    expect(svc.catalog.get('mine')?.remote).toBeUndefined();
    // The file tools reach the remote machine: only its skill folders are readable there.
    expect(svc.catalog.readableRoots(true)).toEqual([join(workspace, '.deft/skills')]);
    const payload = svc.payload();
    expect(payload.roots.find((r) => r.path === join(workspace, '.deft/skills'))).toMatchObject({ exists: true, watched: false });
    expect(payload.roots.find((r) => r.path === join(home, 'skills'))).toMatchObject({ exists: true, watched: true });

    await put(there, '.deft/skills/later/SKILL.md', skillMd('later'));
    await svc.refreshRemote();
    expect(svc.catalog.skills.map((s) => s.name)).toEqual(['far', 'later', 'mine']);
  });
});
