import { describe, expect, it } from 'vitest';
import { protectedPathInCommand, protectedPathReason } from './protected-paths';
import { parseShell } from './shell-parse';

const places = { workspace: '/work/project', home: '/home/dev/.deft', userHome: '/home/dev' };

describe('protectedPathReason', () => {
  it('protects .git internals, Deft settings and secrets', () => {
    expect(protectedPathReason('/work/project/.git/hooks/pre-commit', places)).toContain('.git');
    expect(protectedPathReason('/work/project/.git', places)).toContain('.git');
    expect(protectedPathReason('/work/project/.deft/settings.json', places)).toContain('settings');
    expect(protectedPathReason('/work/project/.deft/settings.local.json', places)).toContain('settings');
    expect(protectedPathReason('/home/dev/.deft/settings.json', places)).toContain('settings');
    expect(protectedPathReason('/home/dev/.deft/secrets.json', places)).toContain('settings');
    expect(protectedPathReason('/work/project/.env', places)).toContain('secrets');
    expect(protectedPathReason('/home/dev/.ssh/id_ed25519', places)).toContain('secrets');
  });
  it("protects a workspace's MCP server files: writing one would define a program Deft starts", () => {
    for (const path of ['/work/project/.mcp.json', '/work/project/.deft/mcp.json', '/work/project/sub/.MCP.json'])
      expect(protectedPathReason(path, places), path).toContain('MCP servers');
    expect(protectedPathReason('/work/project/docs/mcp.json', places)).toBeNull();
  });
  it('leaves ordinary files alone', () => {
    for (const path of [
      '/work/project/.gitignore',
      '/work/project/src/git.ts',
      '/work/project/.deft/plans/a.md',
      '/work/project/settings.json',
      '/work/project/.env.example',
    ]) {
      expect(protectedPathReason(path, places), path).toBeNull();
    }
  });
});

describe('protectedPathInCommand', () => {
  it('finds protected paths in arguments and redirections', async () => {
    const [a] = (await parseShell('echo x > .git/hooks/pre-commit')).commands;
    expect(protectedPathInCommand(a!, places)?.word).toBe('.git/hooks/pre-commit');
    const [b] = (await parseShell('cp evil .deft/settings.json')).commands;
    expect(protectedPathInCommand(b!, places)?.word).toBe('.deft/settings.json');
    const [c] = (await parseShell('git commit -m "fix .git handling"')).commands;
    expect(protectedPathInCommand(c!, places)).toBeNull();
  });

  it('treats a quoted or escaped $ as literal, and every real expansion as unknown', async () => {
    const first = async (line: string) => (await parseShell(line)).commands[0]!;
    for (const line of ["sed -i -e 's/^line 2$/LINE 2/' long.txt", 'grep -n "end\\$/x" a.txt', "awk '{print $1}' src/a.txt", "cat 'dir/$weird'"]) {
      expect(protectedPathInCommand(await first(line), places), line).toBeNull();
    }
    for (const line of ['cat "$HOME"/.ssh/id_rsa', 'echo x > "${PWD}"/.git/hooks/x', 'cat a$(echo /.git/config)', 'cat `pwd`/.env', 'cat $((1))/.env']) {
      expect(protectedPathInCommand(await first(line), places), line).not.toBeNull();
    }
  });
});
