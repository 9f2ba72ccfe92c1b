import { execFileSync } from 'node:child_process';
import { mkdir, rm, symlink, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '#test-support/harness';
import { TrustStore } from '../settings/trust';
import { loadInstructions } from './index';
import { InstructionReader } from './load';
import { instructionRoots, nestedCandidates, nestedFolders } from './locations';
import { instructionChars, instructionsSection } from './render';
import { writeInstructionSettings } from './settings';
import { workspacePlace } from '#infra/environment/workspace-place';

let userHome: string;
let deftHome: string;
let ws: string;
beforeEach(async () => {
  userHome = await tempDir('deft-user-');
  deftHome = join(userHome, '.deft');
  ws = join(userHome, 'code', 'app');
  await mkdir(deftHome, { recursive: true });
  await mkdir(ws, { recursive: true });
});
afterEach(() => rm(userHome, { recursive: true, force: true }));

const load = (limits?: { maxFileChars?: number; maxTotalChars?: number; maxImportDepth?: number }) =>
  loadInstructions({ workspace: ws, deftHome, userHome, ...(limits ? { limits } : {}) });
const shown = async () => (await load()).files.map((f) => [f.display, f.scope, f.text.trim()]);

describe('instruction files', () => {
  it('reads the user file, then the project from the repository top down to the workspace; AGENTS.md else CLAUDE.md, both when both', async () => {
    expect((await load()).files).toEqual([]);
    await writeFile(join(deftHome, 'AGENTS.md'), 'Answer in English.');
    await writeFile(join(ws, 'CLAUDE.md'), 'Use pnpm.');
    expect(await shown()).toEqual([
      ['~/.deft/AGENTS.md', 'user', 'Answer in English.'],
      ['CLAUDE.md', 'project', 'Use pnpm.'],
    ]);
    await writeFile(join(ws, 'AGENTS.md'), 'Run the tests.');
    expect((await shown()).map((f) => f[0])).toEqual(['~/.deft/AGENTS.md', 'AGENTS.md', 'CLAUDE.md']);
    // A repository above the workspace: its top's files come first; the home itself is never a project.
    const repo = join(userHome, 'code');
    execFileSync('git', ['init', '-q', repo]);
    await writeFile(join(repo, 'AGENTS.md'), 'Monorepo rules.');
    await writeFile(join(userHome, 'AGENTS.md'), 'Not a project file.');
    expect((await shown()).map((f) => f[0])).toEqual(['~/.deft/AGENTS.md', '~/code/AGENTS.md', 'AGENTS.md', 'CLAUDE.md']);
  });

  it("reads Claude Code's and Codex's user files only when the user turns them on", async () => {
    await mkdir(join(userHome, '.claude'));
    await mkdir(join(userHome, '.codex'));
    await writeFile(join(userHome, '.claude', 'CLAUDE.md'), 'Claude rules.');
    await writeFile(join(userHome, '.codex', 'AGENTS.md'), 'Codex rules.');
    expect(await shown()).toEqual([]);
    await writeInstructionSettings(deftHome, { claudeUser: true });
    expect(await shown()).toEqual([['~/.claude/CLAUDE.md', 'user', 'Claude rules.']]);
    await writeInstructionSettings(deftHome, { codexUser: true });
    expect((await shown()).map((f) => f[0])).toEqual(['~/.claude/CLAUDE.md', '~/.codex/AGENTS.md']);
  });

  it('follows @imports (relative and ~), once each, and a CLAUDE.md that only imports AGENTS.md adds nothing', async () => {
    await mkdir(join(ws, 'docs'));
    await writeFile(
      join(ws, 'AGENTS.md'),
      'Main rules. See @docs/style.md and @docs/style.md again.\nEmail me at a@b.c; `@not/an/import` and\n```\n@neither.md\n```',
    );
    await writeFile(join(ws, 'docs', 'style.md'), 'Two spaces. @../AGENTS.md');
    await writeFile(join(ws, 'neither.md'), 'never read');
    await writeFile(join(ws, 'CLAUDE.md'), '@AGENTS.md\n');
    const set = await load();
    expect(set.files.map((f) => [f.display, f.importedBy])).toEqual([
      ['AGENTS.md', undefined],
      ['docs/style.md', 'AGENTS.md'],
    ]);
    // The user's file may import from the home folder.
    await writeFile(join(deftHome, 'AGENTS.md'), '@~/notes/me.md');
    await mkdir(join(userHome, 'notes'));
    await writeFile(join(userHome, 'notes', 'me.md'), 'My own notes.');
    expect((await shown())[1]).toEqual(['~/notes/me.md', 'user', 'My own notes.']);
  });

  it('detects an import cycle and stops imports at the depth limit', async () => {
    await writeFile(join(ws, 'AGENTS.md'), '@a.md');
    await writeFile(join(ws, 'a.md'), 'A @b.md');
    await writeFile(join(ws, 'b.md'), 'B @a.md');
    const set = await load();
    expect(set.files.map((f) => f.display)).toEqual(['AGENTS.md', 'a.md', 'b.md']);
    expect(set.problems).toEqual([{ display: 'a.md', message: 'import cycle (a.md → b.md → a.md): not followed again' }]);
    for (let i = 0; i < 8; i++) await writeFile(join(ws, `d${i}.md`), `level ${i} @d${i + 1}.md`);
    await writeFile(join(ws, 'AGENTS.md'), '@d0.md');
    const deep = await load({ maxImportDepth: 3 });
    expect(deep.files.map((f) => f.display)).toEqual(['AGENTS.md', 'd0.md', 'd1.md', 'd2.md']);
    expect(deep.problems).toEqual([{ display: 'd3.md', message: 'not imported: imports go at most 3 files deep' }]);
  });

  it('never imports ~/.ssh/id_rsa, and imports from the home folder only once the folder is trusted', async () => {
    await mkdir(join(userHome, '.ssh'));
    await writeFile(join(userHome, '.ssh', 'id_rsa'), '-----BEGIN OPENSSH PRIVATE KEY-----\nsecret\n');
    await writeFile(join(userHome, 'notes.md'), 'home notes');
    await writeFile(join(ws, 'AGENTS.md'), 'Rules. @~/.ssh/id_rsa @~/notes.md @/etc/passwd');
    const before = await load();
    expect(before.files.map((f) => f.display)).toEqual(['AGENTS.md']);
    expect(before.problems.map((p) => p.display)).toEqual(['~/.ssh/id_rsa', '~/notes.md', '/etc/passwd']);
    expect(before.problems[1]!.message).toMatch(/need the folder to be trusted/);
    await new TrustStore(deftHome, workspacePlace(ws)).trust();
    const after = await load();
    expect(after.files.map((f) => f.display)).toEqual(['AGENTS.md', '~/notes.md']);
    expect(after.problems).toEqual([
      { display: '~/.ssh/id_rsa', message: 'not read: it is a secret file' },
      { display: '/etc/passwd', message: 'not read: it lies outside the folders instruction files may come from' },
    ]);
    expect(JSON.stringify(after.files)).not.toContain('secret');
  });

  it('refuses a CLAUDE.md that links outside the project, and one that is not a regular file, without hanging', async () => {
    const outside = await tempDir('deft-outside-');
    await writeFile(join(outside, 'notes.md'), 'private notes');
    await symlink(join(outside, 'notes.md'), join(ws, 'CLAUDE.md'));
    execFileSync('mkfifo', [join(ws, 'AGENTS.md')]);
    const set = await load();
    expect(set.files).toEqual([]);
    expect(set.problems.map((p) => [p.display, p.message])).toEqual([
      ['AGENTS.md', 'not read: it is not a regular file'],
      ['CLAUDE.md', 'not read: it lies outside the folders instruction files may come from'],
    ]);
    await rm(outside, { recursive: true, force: true });
  });

  it('reads only the head of a 50 MB AGENTS.md and says where it was cut; the whole set has a cap too', async () => {
    await writeFile(join(ws, 'AGENTS.md'), 'é'.repeat(30));
    await truncate(join(ws, 'AGENTS.md'), 50 * 1024 * 1024);
    const set = await load({ maxFileChars: 10 });
    expect(set.files[0]!.text).toMatch(/^é{10}\n\[Cut here: Deft reads 10 characters of an instruction file, and this one is 52,428,800 bytes\./);
    expect(set.problems).toEqual([{ display: 'AGENTS.md', message: 'cut at 10 characters (the file is 52,428,800 bytes)' }]);
    await writeFile(join(ws, 'AGENTS.md'), 'x'.repeat(50));
    await writeFile(join(ws, 'CLAUDE.md'), 'y'.repeat(50));
    const capped = await load({ maxTotalChars: 50 });
    expect(capped.files.map((f) => f.display)).toEqual(['AGENTS.md']);
    expect(capped.problems).toEqual([{ display: 'CLAUDE.md', message: 'not read: the instruction files together reached 50 characters' }]);
  });

  it('finds the nested folders of a touched file, skipping dependency folders, and reads each once', async () => {
    const roots = instructionRoots(ws, userHome);
    expect(nestedFolders(roots.workspace, join(roots.workspace, 'pkg', 'api', 'x.ts'))).toEqual([
      join(roots.workspace, 'pkg'),
      join(roots.workspace, 'pkg', 'api'),
    ]);
    expect(nestedFolders(roots.workspace, join(roots.workspace, 'x.ts'))).toEqual([]);
    expect(nestedFolders(roots.workspace, join(roots.workspace, 'node_modules', 'p', 'x.ts'))).toEqual([]);
    expect(nestedFolders(roots.workspace, '/etc/x')).toEqual([]);
    await mkdir(join(ws, 'pkg'));
    await writeFile(join(ws, 'AGENTS.md'), 'root');
    await writeFile(join(ws, 'pkg', 'CLAUDE.md'), 'pkg rules @../AGENTS.md');
    const root = await load();
    const reader = new InstructionReader({ ...roots, deftHome, userHome, trusted: false }, new Set(root.read));
    const set = await reader.read(nestedCandidates(join(roots.workspace, 'pkg')));
    expect(set.files.map((f) => [f.display, f.scope])).toEqual([['pkg/CLAUDE.md', 'nested']]);
  });

  it('renders blocks the context meter can count', async () => {
    await writeFile(join(ws, 'AGENTS.md'), 'Use "tabs".');
    const section = instructionsSection((await load()).files)!;
    expect(section).toContain('<instructions file="AGENTS.md" from="the project">\nUse "tabs".\n</instructions>');
    const block = '<instructions file="AGENTS.md" from="the project">\nUse "tabs".\n</instructions>';
    expect(instructionChars(`before ${section} after`)).toBe(block.length);
    expect(instructionsSection([])).toBeNull();
  });
});
