import { execFileSync } from 'node:child_process';
import { mkdir, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { rm } from 'node:fs/promises';
import { tempDir } from '#test-support/harness';
import { SkillCatalog } from './catalog';
import { projectRoot, resolveSkillRoots } from './roots';
import { ScanCache, scanRoot } from './scanner';
import { type SkillFs, localSkillFs } from './skill-fs';
import { put, skillMd } from '#test-support/skills';
import type { SkillRootSpec } from './types';

let base: string;
beforeEach(async () => {
  base = await tempDir('deft-skills-');
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

const root = (path: string, source: SkillRootSpec['source'] = 'workspace'): SkillRootSpec => ({ path, source, watch: false });

describe('scanRoot', () => {
  it('finds bundles at any depth up to 8, flat files at the top level only, in sorted order', async () => {
    const r = join(base, 'skills');
    await put(r, 'zeta/SKILL.md', skillMd('zeta'));
    await put(r, 'alpha/SKILL.md', skillMd('alpha'));
    await put(r, 'group/nested/deep/SKILL.md', skillMd('deep'));
    await put(r, 'quick.md', '# Quick fix\nDo it quickly.');
    await put(r, 'group/not-flat.md', 'ignored: flat files count only at the top level');
    await put(r, 'README.md', '# About these skills');
    await put(r, `${'d/'.repeat(8)}SKILL.md`, skillMd('depth-eight'));
    await put(r, `${'e/'.repeat(9)}SKILL.md`, skillMd('depth-nine'));
    const scan = await scanRoot(root(r));
    expect(scan.skills.map((s) => s.name)).toEqual(['alpha', 'depth-eight', 'deep', 'zeta', 'quick']);
    expect(scan.skills.find((s) => s.name === 'quick')).toMatchObject({ format: 'flat', description: 'Quick fix', dir: r });
    expect(scan.skills.find((s) => s.name === 'deep')).toMatchObject({
      format: 'bundle',
      dir: join(r, 'group/nested/deep'),
      file: join(r, 'group/nested/deep/SKILL.md'),
    });
    expect(scan.skipped).toEqual([]);
  });

  it('skips node_modules and dot-folders, and does not look inside a bundle that has no sub-skills', async () => {
    const r = join(base, 'skills');
    await put(r, 'node_modules/pkg/SKILL.md', skillMd('from-node-modules'));
    await put(r, '.hidden/SKILL.md', skillMd('hidden'));
    await put(r, 'tool/SKILL.md', skillMd('tool'));
    await put(r, 'tool/examples/SKILL.md', skillMd('example-inside'));
    expect((await scanRoot(root(r))).skills.map((s) => s.name)).toEqual(['tool']);
  });

  it('registers sub-skills as parent.child below a has-sub-skill bundle', async () => {
    const r = join(base, 'skills');
    await put(r, 'release/SKILL.md', skillMd('release', 'Release steps.', 'has-sub-skill: true'));
    await put(r, 'release/notes/SKILL.md', skillMd('notes'));
    await put(r, 'release/more/tag/SKILL.md', skillMd('release.tag'));
    const scan = await scanRoot(root(r));
    expect(scan.skills.map((s) => [s.name, s.isSubSkill, s.parent])).toEqual([
      ['release', false, undefined],
      ['release.tag', true, 'release'],
      ['release.notes', true, 'release'],
    ]);
  });

  it('treats names case-insensitively: a clash inside one root is skipped with a reason; a folder beats a flat file', async () => {
    const r = join(base, 'skills');
    await put(r, 'a/SKILL.md', skillMd('Write-TUI'));
    await put(r, 'b/SKILL.md', skillMd('write-tui'));
    await put(r, 'c/SKILL.md', skillMd('write_tui'));
    await put(r, 'fix/SKILL.md', skillMd('fix'));
    await put(r, 'fix.md', 'Flat fix');
    const scan = await scanRoot(root(r));
    expect(scan.skills.map((s) => s.name)).toEqual(['write-tui', 'write_tui', 'fix']);
    expect(scan.skills[0]!.displayName).toBe('Write-TUI');
    expect(scan.skipped).toEqual([
      {
        file: join(r, 'b/SKILL.md'),
        reason: `duplicate name "write-tui": another skill in this folder already has this name (${join(r, 'a/SKILL.md')})`,
        source: 'workspace',
      },
      {
        file: join(r, 'fix.md'),
        reason: `duplicate name "fix": a skill folder of the same name wins over a flat file (${join(r, 'fix/SKILL.md')})`,
        source: 'workspace',
      },
    ]);
  });

  it('reports broken skills (file, reason) and keeps the good ones', async () => {
    const r = join(base, 'skills');
    await put(r, 'good/SKILL.md', skillMd('good'));
    await put(r, 'yaml/SKILL.md', '---\nname: [oops\ndescription: d\n---\n');
    await put(r, 'noname/SKILL.md', '---\ndescription: d\n---\n');
    await put(r, 'type/SKILL.md', skillMd('typed', 'd', 'type: macro'));
    const scan = await scanRoot(root(r, 'user'));
    expect(scan.skills.map((s) => s.name)).toEqual(['good']);
    expect(scan.skipped.map((s) => [s.file.slice(r.length + 1), s.source])).toEqual([
      ['noname/SKILL.md', 'user'],
      ['type/SKILL.md', 'user'],
      ['yaml/SKILL.md', 'user'],
    ]);
    expect(scan.skipped[1]!.reason).toContain('unsupported type "macro"');
    expect(scan.skipped[2]!.reason).toContain('not valid YAML');
  });

  it('survives symlink cycles and follows a symlinked skill folder once', async () => {
    const r = join(base, 'skills');
    await put(r, 'real/one/SKILL.md', skillMd('one'));
    await symlink(r, join(r, 'real', 'loop'));
    await symlink(join(r, 'real'), join(r, 'alias'));
    await mkdir(join(base, 'outside'), { recursive: true });
    await put(base, 'outside/shared/SKILL.md', skillMd('shared'));
    await symlink(join(base, 'outside', 'shared'), join(r, 'shared-link'));
    const scan = await scanRoot(root(r));
    expect(scan.skills.map((s) => s.name).sort()).toEqual(['one', 'shared']);
    expect(scan.skipped).toEqual([]);
  });

  it("takes the stats of a listing's SKILL.md files in one batch, never one stat call per skill (issue 36)", async () => {
    const r = join(base, 'skills');
    for (const name of ['a', 'b', 'c']) await put(r, `${name}/SKILL.md`, skillMd(name));
    await put(r, 'group/nested/d/SKILL.md', skillMd('d'));
    const stats: string[] = [];
    const batches: string[][] = [];
    const fs: SkillFs = {
      ...localSkillFs,
      stat: (path) => (stats.push(path), localSkillFs.stat(path)),
      statMany: (paths) => (batches.push(paths.map((p) => p.slice(r.length + 1))), localSkillFs.statMany(paths)),
    };
    const scan = await scanRoot(root(r), new ScanCache(fs));
    expect(scan.skills.map((s) => s.name)).toEqual(['a', 'b', 'c', 'd']);
    expect(stats).toEqual([r]);
    expect(batches).toEqual([['a/SKILL.md', 'b/SKILL.md', 'c/SKILL.md', 'group/SKILL.md'], ['group/nested/SKILL.md'], ['group/nested/d/SKILL.md']]);
  });

  it('names files as join would under a root spelt with .. or a trailing separator', async () => {
    const r = join(base, 'skills');
    await put(r, 'one/SKILL.md', skillMd('one'));
    await put(r, 'flat.md', skillMd('flat'));
    await mkdir(join(base, 'x'));
    for (const spelt of [`${base}/x/../skills`, `${r}/`, `${base}//skills`]) {
      const scan = await scanRoot(root(spelt));
      expect(
        scan.skills.map((s) => [s.name, s.file]),
        spelt,
      ).toEqual([
        ['one', join(r, 'one', 'SKILL.md')],
        ['flat', join(r, 'flat.md')],
      ]);
    }
  });

  it('skips a SKILL.md that is a pipe or a device instead of reading it (a read would hang or fill memory)', async () => {
    const r = join(base, 'skills');
    await put(r, 'fine/SKILL.md', skillMd('fine'));
    await mkdir(join(r, 'pipe'), { recursive: true });
    execFileSync('mkfifo', [join(r, 'pipe', 'SKILL.md')]);
    await mkdir(join(r, 'zero'), { recursive: true });
    await symlink('/dev/zero', join(r, 'zero', 'SKILL.md'));
    const scan = await scanRoot(root(r));
    expect(scan.skills.map((s) => s.name)).toEqual(['fine']);
    expect(scan.skipped.map((s) => [s.file, s.reason])).toEqual([
      [join(r, 'pipe', 'SKILL.md'), expect.stringContaining('not a regular file')],
      [join(r, 'zero', 'SKILL.md'), expect.stringContaining('not a regular file')],
    ]);
  }, 10_000);

  it('treats a root that is itself a skill folder as that one skill, and a missing root as empty', async () => {
    const r = join(base, 'one-skill');
    await put(r, 'SKILL.md', skillMd('solo'));
    expect((await scanRoot(root(r))).skills.map((s) => s.name)).toEqual(['solo']);
    expect(await scanRoot(root(join(base, 'missing')))).toMatchObject({ exists: false, skills: [] });
  });
});

describe('SkillCatalog', () => {
  it('lets the higher-priority root win a clash and records what it overrides', async () => {
    const ws = join(base, 'ws');
    const user = join(base, 'user');
    const builtin = join(base, 'builtin');
    await put(ws, 'review/SKILL.md', skillMd('Review', 'Workspace review.'));
    await put(user, 'review/SKILL.md', skillMd('review', 'User review.'));
    await put(user, 'mine/SKILL.md', skillMd('mine'));
    await put(builtin, 'review/SKILL.md', skillMd('review', 'Built-in review.'));
    const scans = await Promise.all([scanRoot(root(ws)), scanRoot(root(user, 'user')), scanRoot(root(builtin, 'builtin'))]);
    const catalog = new SkillCatalog(scans, 1);
    expect(catalog.skills.map((s) => `${s.name}:${s.source}`)).toEqual(['review:workspace', 'mine:user']);
    expect(catalog.get('REVIEW')!.description).toBe('Workspace review.');
    expect(catalog.get('/skill:review')!.source).toBe('workspace');
    expect(catalog.overridesOf('review')).toEqual([
      { source: 'user', file: join(user, 'review/SKILL.md') },
      { source: 'builtin', file: join(builtin, 'review/SKILL.md') },
    ]);
    expect(catalog.overridesOf('mine')).toEqual([]);
    expect(catalog.payload([]).skills[0]!.overrides).toEqual(catalog.overridesOf('review'));
    expect(catalog.closeNames('reveiw')).toEqual(['review']);
    expect(catalog.closeNames('min')).toEqual(['mine']);
    expect(catalog.closeNames('zzzzzzzz')).toEqual([]);
  });
});

describe('resolveSkillRoots', () => {
  it('orders workspace, project root, user, extra, built-in; explicit dirs replace workspace and user', async () => {
    const project = join(base, 'repo');
    const workspace = join(project, 'packages', 'app');
    await mkdir(workspace, { recursive: true });
    execFileSync('git', ['init', '-q'], { cwd: project, env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' } });
    expect(projectRoot(workspace)).toBe(project);
    const home = join(base, 'deft-home');
    const userHome = join(base, 'me');
    const roots = resolveSkillRoots({ workspace, home, userHome, builtinDir: '/app/skills', settings: { extraDirs: ['~/shared-skills', 'team/skills'] } });
    expect(roots.map((r) => [r.source, r.path, r.watch])).toEqual([
      ['workspace', join(workspace, '.deft/skills'), true],
      ['workspace', join(workspace, '.agents/skills'), true],
      ['workspace', join(workspace, '.claude/skills'), true],
      ['workspace', join(workspace, '.claude/commands'), true],
      ['workspace', join(project, '.deft/skills'), true],
      ['workspace', join(project, '.agents/skills'), true],
      ['workspace', join(project, '.claude/skills'), true],
      ['workspace', join(project, '.claude/commands'), true],
      ['user', join(home, 'skills'), true],
      ['user', join(userHome, '.agents/skills'), true],
      ['user', join(userHome, '.claude/skills'), true],
      ['user', join(userHome, '.claude/commands'), true],
      ['extra', join(userHome, 'shared-skills'), true],
      ['extra', join(project, 'team/skills'), true],
      ['builtin', '/app/skills', false],
    ]);
    const explicit = resolveSkillRoots({ workspace, home, userHome, builtinDir: null, explicitDirs: ['/opt/skills'], settings: { dirs: ['/ignored'] } });
    expect(explicit.map((r) => [r.source, r.path])).toEqual([['explicit', '/opt/skills']]);
    const fromSettings = resolveSkillRoots({ workspace, home, userHome, builtinDir: null, settings: { dirs: ['~/only'] } });
    expect(fromSettings.map((r) => [r.source, r.path])).toEqual([['explicit', join(userHome, 'only')]]);
  });

  it("uses the workspace as the project root outside a repository, and finds the app's built-in skills folder", () => {
    const roots = resolveSkillRoots({ workspace: base, home: join(base, 'h'), userHome: join(base, 'u') });
    expect(roots.filter((r) => r.source === 'workspace').map((r) => r.path)).toEqual([
      join(base, '.deft/skills'),
      join(base, '.agents/skills'),
      join(base, '.claude/skills'),
      join(base, '.claude/commands'),
    ]);
    expect(roots.at(-1)).toMatchObject({ source: 'builtin', path: join(import.meta.dirname, '../../../../skills') });
  });
});
