import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TrustStore } from '#infra/settings/trust';
import { tempDir } from '#test-support/harness';
import { BUILTIN_TYPES } from './builtin';
import { AgentTypeCatalog } from './catalog';
import { parseDefinition } from './definition';
import { toolMatcher } from './tool-names';
import { workspacePlace } from '#infra/environment/workspace-place';

async function places() {
  const workspace = await tempDir('deft-agents-ws-');
  const home = await tempDir('deft-agents-home-');
  const userHome = await tempDir('deft-agents-user-');
  return { workspace, home, userHome };
}

async function put(dir: string, name: string, text: string) {
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, name), text);
}

describe('sub-agent definitions', () => {
  it('reads the format other agents write: a YAML list or comma-separated tools, their tool names, model aliases', () => {
    const listed = parseDefinition(
      '---\nname: tester\ndescription: Runs tests\ntools:\n  - Bash\n  - Read\n  - TodoWrite\n  - WebFetch\nmodel: sonnet\n---\nRun the tests.\n',
      '/x/tester.md',
      'user',
    );
    expect(listed.type).toMatchObject({ name: 'tester', tools: ['Bash', 'Read', 'TodoList', 'FetchURL'], source: 'user' });
    expect(listed.type.model).toBeUndefined();
    expect(listed.ignored.join('\n')).toMatch(/model "sonnet"/);
    const own = parseDefinition(
      '---\nname: docs\ndescription: Writes docs\ntools: Read, Write, mcp__github__*\nmodel: kimi-k2\n---\nWrite docs.\n',
      '/x/docs.md',
      'workspace',
    );
    expect(own.type).toMatchObject({ tools: ['Read', 'Write', 'mcp__github__*'], model: 'kimi-k2' });
    expect(own.type.prompt).toContain('Write docs.');
  });

  it('says why a file cannot be used', () => {
    const bad = (text: string) => () => parseDefinition(text, '/x/a.md', 'user');
    expect(bad('---\ndescription: x\n---\nbody')).toThrow(/no name/);
    expect(bad('---\nname: Bad Name\ndescription: x\n---\nbody')).toThrow(/not a valid name/);
    expect(bad('---\nname: a\n---\nbody')).toThrow(/no description/);
    expect(bad('---\nname: a\ndescription: x\n---\n')).toThrow(/no instructions/);
    expect(bad('---\nname: a\ndescription: x\ntools: Agent, Task\n---\nbody')).toThrow(/none of its tools/);
    expect(bad('---\nname: [a\n---\nbody')).toThrow(/not valid YAML/);
  });

  it('matches tool names and prefixes; delegation is refused in the definition (the runtime keeps main-agent-only tools from every sub-agent)', () => {
    const all = toolMatcher(['*']);
    expect(['Read', 'Bash', 'mcp__x__y', 'select_tools'].every(all)).toBe(true);
    const some = toolMatcher(['Read', 'mcp__github__*']);
    expect(some('mcp__github__issues')).toBe(true);
    expect(some('mcp__slack__post')).toBe(false);
    expect(toolMatcher(['Read'])('select_tools')).toBe(false);
    const parsed = parseDefinition('---\nname: a\ndescription: x\ntools: Read, Agent, AgentSwarm, Task, WebFetch, Re ad\n---\nbody', '/a.md', 'user');
    expect(parsed.type.tools).toEqual(['Read', 'FetchURL']);
    expect(parsed.ignored).toEqual([
      'tool Agent (sub-agents cannot have it)',
      'tool AgentSwarm (sub-agents cannot have it)',
      'tool Task (sub-agents cannot delegate)',
      'tool Re ad (not a tool name)',
    ]);
  });

  it('the built-in types are definitions like the user’s, naming only tools that exist', () => {
    expect(BUILTIN_TYPES.map((t) => [t.name, t.source, t.tools])).toEqual([
      ['coder', 'builtin', ['*']],
      ['explore', 'builtin', ['Read', 'ReadMediaFile', 'Glob', 'Grep', 'FetchURL', 'WebSearch', 'Bash']],
      ['plan', 'builtin', ['Read', 'ReadMediaFile', 'Glob', 'Grep', 'FetchURL', 'WebSearch']],
    ]);
    expect(BUILTIN_TYPES.every((t) => t.prompt.startsWith(`## Your role: a sub-agent (${t.name})\nYou are a sub-agent:`) && !('file' in t))).toBe(true);
  });
});

describe('the catalog', () => {
  it("uses the user's folders at once, the workspace's only once it is trusted; a workspace link is refused", async () => {
    const p = await places();
    await put(join(p.home, 'agents'), 'mine.md', '---\nname: mine\ndescription: My own\n---\nDo mine.\n');
    await put(join(p.userHome, '.claude', 'agents'), 'claude.md', '---\nname: claude-one\ndescription: From Claude\ntools: Read\n---\nRead.\n');
    await put(join(p.workspace, '.deft', 'agents'), 'repo.md', '---\nname: repo\ndescription: From the repo\n---\nRepo.\n');
    await put(join(p.workspace, '.deft', 'agents'), 'mine.md', '---\nname: mine\ndescription: The repo wins for its own workspace\n---\nRepo mine.\n');
    await put(p.workspace, 'secret.txt', 'token=abc');
    await symlink(join(p.workspace, 'secret.txt'), join(p.workspace, '.deft', 'agents', 'link.md'));
    const changes: number[] = [];
    const catalog = new AgentTypeCatalog(p, (s) => changes.push(s.types.length));
    let snapshot = await catalog.refresh();
    expect(snapshot.types.map((t) => t.name)).toEqual(['coder', 'explore', 'plan', 'mine', 'claude-one']);
    expect(snapshot.skipped.filter((s) => s.source === 'workspace').map((s) => s.reason)).toEqual([
      expect.stringMatching(/not trusted/),
      expect.stringMatching(/not trusted/),
      expect.stringMatching(/not trusted/),
    ]);
    await new TrustStore(p.home, workspacePlace(p.workspace)).trust();
    snapshot = await catalog.refresh();
    expect(snapshot.types.map((t) => `${t.name}:${t.source}`)).toEqual([
      'coder:builtin',
      'explore:builtin',
      'plan:builtin',
      'mine:workspace',
      'repo:workspace',
      'claude-one:user',
    ]);
    const reasons = snapshot.skipped.map((s) => `${s.file.split('/').at(-1)}: ${s.reason}`);
    expect(reasons).toContain('link.md: it is a symbolic link: a workspace definition must be a plain file');
    expect(reasons.some((r) => r.startsWith('mine.md: "mine" is already defined by'))).toBe(true);
    expect(changes).toHaveLength(2);
    // Nothing changed on disk: no change reported.
    await catalog.refresh();
    expect(changes).toHaveLength(2);
  });
});
