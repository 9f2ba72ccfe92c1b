import { readFile, rm, stat, symlink, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '#test-support/harness';
import { put, skillMd } from '#test-support/skills';
import { ScanCache, scanRoot } from './scanner';
import { SkillService } from './service';
import { type SkillFs, localSkillFs } from './skill-fs';
import { StoredSkillCatalog, storedCatalogPath } from './stored-catalog';
import type { SkillRootSpec } from './types';

let base: string;
let root: SkillRootSpec;
let file: string;
/** Later than any file here by more than the racy window: everything scanned may be stored. */
const later = () => Date.now() + 10_000;

beforeEach(async () => {
  base = await tempDir('deft-skill-store-');
  root = { path: join(base, 'skills'), source: 'user', watch: false };
  file = join(base, 'home', 'cache', 'skills-catalog.json');
  await put(root.path, 'alpha/SKILL.md', skillMd('alpha', 'First skill.', 'arguments: [target]\nwhen-to-use: When alpha.'));
  await put(root.path, 'beta/SKILL.md', skillMd('beta', 'Second skill.'));
  await put(root.path, 'broken/SKILL.md', '---\nname: broken\n---\nno description\n');
});
afterEach(() => rm(base, { recursive: true, force: true }));

/** This machine's files, counting the reads of skill files. */
function counting(): SkillFs & { reads: string[] } {
  const reads: string[] = [];
  return { ...localSkillFs, readText: (path) => (reads.push(path), localSkillFs.readText(path)), reads };
}

/** A scan as a run does it: the stored catalog read first, saved after. */
async function run(now = later()) {
  const fs = counting();
  const cache = new ScanCache(fs);
  const store = new StoredSkillCatalog(file);
  cache.useStored(await store.load([root.path]));
  const scan = await scanRoot(root, cache);
  if (cache.takeChanged()) await store.save([root.path], cache.storable(), now);
  const shown = scan.skills.map(({ name, description, arguments: args, whenToUse, stamp }) => ({ name, description, args, whenToUse, stamp }));
  return { reads: fs.reads.map((p) => p.slice(root.path.length + 1)).sort(), skills: shown, skipped: scan.skipped.map((s) => s.reason) };
}

describe('the stored skills catalog', () => {
  it('a run after one that changed nothing reads no skill file, and finds the same catalog', async () => {
    const first = await run();
    expect(first.reads).toEqual(['alpha/SKILL.md', 'beta/SKILL.md', 'broken/SKILL.md']);
    const second = await run();
    expect(second.reads).toEqual([]);
    expect(second.skills).toEqual(first.skills);
    expect(second.skipped).toEqual(first.skipped);
    expect(second.skills[0]).toMatchObject({ name: 'alpha', args: [{ name: 'target' }], whenToUse: 'When alpha.' });
  });

  it('notices an edit that keeps size and modification time (the change time differs), an added and a removed skill', async () => {
    const alpha = join(root.path, 'alpha', 'SKILL.md');
    // A whole second, so that setting it again gives exactly the same modification time.
    await utimes(alpha, 1_700_000_000, 1_700_000_000);
    await run();
    const before = await stat(alpha);
    await writeFile(alpha, skillMd('alpha', 'First Skill.', 'arguments: [target]\nwhen-to-use: When alpha.'));
    await utimes(alpha, 1_700_000_000, 1_700_000_000);
    const after = await stat(alpha);
    expect([after.size, after.mtimeMs, after.ino]).toEqual([before.size, before.mtimeMs, before.ino]);
    await put(root.path, 'gamma/SKILL.md', skillMd('gamma', 'Third skill.'));
    await rm(join(root.path, 'beta'), { recursive: true });
    const next = await run();
    expect(next.reads).toEqual(['alpha/SKILL.md', 'gamma/SKILL.md']);
    expect(next.skills.map((s) => [s.name, s.description])).toEqual([
      ['alpha', 'First Skill.'],
      ['gamma', 'Third skill.'],
    ]);
    // The removed skill is gone from the file too.
    expect(await readFile(file, 'utf8')).not.toContain('beta');
  });

  it('a nested skill added, then edited in place keeping its size and time, is read again each time', async () => {
    await run();
    const delta = await put(root.path, 'group/nested/delta/SKILL.md', skillMd('delta', 'Fourth skill.'));
    await utimes(delta, 1_700_000_000, 1_700_000_000);
    expect((await run()).reads).toEqual(['group/nested/delta/SKILL.md']);
    await writeFile(delta, skillMd('delta', 'Fourth Skill.'));
    await utimes(delta, 1_700_000_000, 1_700_000_000);
    const edited = await run();
    expect(edited.reads).toEqual(['group/nested/delta/SKILL.md']);
    expect(edited.skills.find((s) => s.name === 'delta')?.description).toBe('Fourth Skill.');
    expect((await run()).reads).toEqual([]);
  });

  it('a skill folder swapped for a symlink is read through it; a symlink back to an ancestor is not followed', async () => {
    await run();
    await put(base, 'elsewhere/beta/SKILL.md', skillMd('beta', 'Beta from elsewhere.'));
    await rm(join(root.path, 'beta'), { recursive: true });
    await symlink(join(base, 'elsewhere', 'beta'), join(root.path, 'beta'));
    const linked = await run();
    expect(linked.reads).toEqual(['beta/SKILL.md']);
    expect(linked.skills.map((s) => [s.name, s.description])).toEqual([
      ['alpha', 'First skill.'],
      ['beta', 'Beta from elsewhere.'],
    ]);
    expect((await run()).reads).toEqual([]);
    // The link now leads to another folder with a SKILL.md of the very same size and time: another file, read.
    await put(base, 'other/beta/SKILL.md', skillMd('beta', 'Beta from otherwhere'));
    const [was, now] = [join(base, 'elsewhere', 'beta', 'SKILL.md'), join(base, 'other', 'beta', 'SKILL.md')];
    await utimes(was, 1_700_000_000, 1_700_000_000);
    await utimes(now, 1_700_000_000, 1_700_000_000);
    expect((await stat(now)).size).toBe((await stat(was)).size);
    await run();
    await rm(join(root.path, 'beta'));
    await symlink(join(base, 'other', 'beta'), join(root.path, 'beta'));
    const relinked = await run();
    expect(relinked.reads).toEqual(['beta/SKILL.md']);
    expect(relinked.skills.find((s) => s.name === 'beta')?.description).toBe('Beta from otherwhere');
    // A link back to the root is a cycle: nothing through it is read or listed, and the run ends.
    await rm(join(root.path, 'beta'));
    await symlink(root.path, join(root.path, 'beta'));
    const cycle = await run();
    expect(cycle.skills.map((s) => s.name)).toEqual(['alpha']);
    expect(cycle.reads).toEqual([]);
  });

  it('a file changed within the last two seconds is not stored (it may change again unseen within the same clock tick)', async () => {
    await run(Date.now());
    expect((await run()).reads).toEqual(['alpha/SKILL.md', 'beta/SKILL.md', 'broken/SKILL.md']);
    expect((await run()).reads).toEqual([]);
  });

  it('a damaged or hostile catalog is ignored entry by entry, the files read again and the catalog written anew', async () => {
    const first = await run();
    const good = JSON.parse(await readFile(file, 'utf8'));
    const entries = good.roots[root.path].files;
    const key = (name: string) => `bundle:${join(root.path, name, 'SKILL.md')}`;
    // Stats that match, results that are not what the parser gives.
    entries[key('alpha')].result = { ...entries[key('alpha')].result, displayName: '../../etc passwd' };
    entries[key('beta')].result = { ...entries[key('beta')].result, type: 'shell', run: 'rm -rf /' };
    entries[key('broken')].result = 42;
    await writeFile(file, JSON.stringify(good));
    const hostile = await run();
    expect(hostile.reads).toEqual(['alpha/SKILL.md', 'beta/SKILL.md', 'broken/SKILL.md']);
    expect(hostile.skills).toEqual(first.skills);
    for (const damaged of ['{"version":1,"roots":', 'null', '{"version":2,"roots":{}}', '[]', '{"version":1,"roots":{"x":5}}']) {
      await writeFile(file, damaged);
      const again = await run();
      expect(again.reads, damaged).toEqual(['alpha/SKILL.md', 'beta/SKILL.md', 'broken/SKILL.md']);
      expect(again.skills).toEqual(first.skills);
      expect(JSON.parse(await readFile(file, 'utf8')).version).toBe(1);
    }
  });

  it('SkillService keeps it under Deft home: a second service reads no skill file', async () => {
    const home = join(base, 'home');
    // Old enough to be stored (see the racy window above).
    await new Promise((r) => setTimeout(r, 2_100));
    const options = { workspace: join(base, 'ws'), home, userHome: join(base, 'me'), builtinDir: null, watch: false };
    const first = new SkillService({ ...options, explicitDirs: [root.path] });
    await first.ready();
    await first.close();
    expect(first.filesRead).toBe(3);
    expect(JSON.parse(await readFile(storedCatalogPath(home), 'utf8')).roots[root.path]).toBeDefined();
    const second = new SkillService({ ...options, explicitDirs: [root.path] });
    await second.ready();
    await second.close();
    expect(second.filesRead).toBe(0);
    expect(second.catalog.skills.map((s) => s.name)).toEqual(['alpha', 'beta']);
    const off = new SkillService({ ...options, explicitDirs: [root.path], storedCatalog: false });
    await off.ready();
    await off.close();
    expect(off.filesRead).toBe(3);
  }, 15_000);
});
