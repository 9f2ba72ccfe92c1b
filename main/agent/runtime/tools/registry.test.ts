import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type Tool, defineTool } from '#contract/tool';
import { ToolRegistry } from './registry';

const tool = (name: string, extra: Partial<Tool> = {}): Tool => ({
  ...defineTool({
    name,
    policy: { approval: 'rules', mainAgentOnly: false },
    description: `${name} tool`,
    input: z.object({}),
    resolveExecution: () => ({ output: '' }),
  }),
  ...extra,
});

describe('ToolRegistry', () => {
  it('knows every tool with its source, offers inline ones, and keeps deferred ones out of the schemas until selected', () => {
    const registry = new ToolRegistry([tool('Read'), tool('mcp__git__log', { source: 'mcp', disclosure: 'deferred' }), tool('Mine', { source: 'user' })]);
    expect(registry.get('Read')).toMatchObject({ source: 'builtin', disclosure: 'inline' });
    expect(registry.get('mcp__git__log')).toMatchObject({ source: 'mcp', disclosure: 'deferred' });
    expect(registry.get('Mine')).toMatchObject({ source: 'user', disclosure: 'inline' });
    expect(registry.names()).toEqual(['Read', 'Mine']);
    expect(registry.schemas().map((s) => s.name)).toEqual(['Read', 'Mine']);
    expect(registry.deferred()).toEqual(['mcp__git__log']);
    expect(registry.isOffered('mcp__git__log')).toBe(false);

    expect(registry.select('mcp__git__log')).toBe('selected');
    expect(registry.select('mcp__git__log')).toBe('already offered');
    expect(registry.select('Read')).toBe('already offered');
    expect(registry.select('Nope')).toBe('unknown');
    expect(registry.schemas().map((s) => s.name)).toEqual(['Read', 'mcp__git__log', 'Mine']);
    expect(registry.deferred()).toEqual([]);
  });

  it('starts with the selections it is given (a session’s earlier choices)', () => {
    const registry = new ToolRegistry([tool('A', { disclosure: 'deferred' }), tool('B', { disclosure: 'deferred' })], { selected: ['B'] });
    expect(registry.names()).toEqual(['B']);
  });

  it('refuses two tools with one name', () => {
    expect(() => new ToolRegistry([tool('A'), tool('A')])).toThrow('Tool "A" is registered twice.');
  });
});
