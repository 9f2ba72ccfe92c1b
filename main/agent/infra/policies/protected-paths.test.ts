import { describe, expect, it } from 'vitest';
import { printedArgumentsAreData, protectedPathInCommand, protectedPathReason } from './protected-paths';
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
  it("a session in a Deft worktree (under Deft's home) works in its own checkout, and nowhere else there", () => {
    const worktree = { ...places, workspace: '/home/dev/.deft/worktrees/project-0123456789/fix' };
    expect(protectedPathReason('/home/dev/.deft/worktrees/project-0123456789/fix/src/a.ts', worktree)).toBeNull();
    expect(protectedPathReason('/home/dev/.deft/worktrees/project-0123456789/fix', worktree)).toBeNull();
    expect(protectedPathReason('/home/dev/.deft/worktrees/project-0123456789/other/a.ts', worktree)).toContain("Deft's home");
    expect(protectedPathReason('/home/dev/.deft/worktrees/project-0123456789/fix.json', worktree)).toContain("Deft's home");
    expect(protectedPathReason('/home/dev/.deft/settings.json', worktree)).toContain('settings');
    expect(protectedPathReason('/home/dev/.deft/worktrees/project-0123456789/fix/.git', worktree)).toContain('.git');
    expect(protectedPathReason('/home/dev/.deft/worktrees/project-0123456789/fix/a.ts', places)).toContain("Deft's home");
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

describe('what printing builtins are given (issue 35 item 5)', () => {
  const hit = async (line: string) => {
    const { commands } = await parseShell(line);
    const dataArguments = printedArgumentsAreData(commands);
    return commands.map((c) => protectedPathInCommand(c, places, { dataArguments })).find((h) => h !== null) ?? null;
  };
  it('takes the plain arguments of echo, printf, true and : as text when their output is shown', async () => {
    for (const line of ['echo "line $i of .git/config"', 'echo .git/config', 'printf \'%s\\n\' "$HOME/.deft/settings.json"', 'true $X/.env', ': "${Y}/.git/x"'])
      expect(await hit(line), line).toBeNull();
  });
  it('keeps checking what feeds another command, substitutions, assignments, printf -v and redefined names', async () => {
    for (const line of [
      'echo .git/config | xargs touch',
      'echo "$(cat .env)"',
      'echo "${X:=.git/config}"',
      'printf -v x .git/config',
      'echo() { tee "$@"; }; echo .git/config',
      'eval true; echo .git/config',
    ])
      expect(await hit(line), line).not.toBeNull();
  });
  it('checks only known protected paths among what is printed into a file, and always the file itself', async () => {
    expect(await hit('echo "row $i/3" >> notes.txt')).toBeNull();
    expect(await hit('echo .git/config >> notes.txt')).toMatchObject({ word: '.git/config', known: true });
    expect(await hit('echo x >> "$d/notes.txt"')).toMatchObject({ word: '$d/notes.txt', known: false });
  });
  it('classifies where a command prints', async () => {
    const outputs = async (line: string) => (await parseShell(line)).commands.map((c) => `${c.name}:${c.output}`);
    expect(await outputs('echo a | cat > f; echo b >&2; echo c 2>/dev/null; echo d >&3; x=$(echo e)')).toEqual([
      'echo:fed',
      'cat:file',
      'echo:shown',
      'echo:shown',
      'echo:file',
      ':shown',
      'echo:fed',
    ]);
  });
});
