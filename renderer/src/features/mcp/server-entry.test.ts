import { describe, expect, it } from 'vitest';
import { readServerEntry } from './server-entry';

describe('readServerEntry', () => {
  it('reads a plain definition under the name given', () => {
    expect(readServerEntry('{"command": "npx", "args": ["-y", "x"]}', ' github ', true)).toEqual({
      name: 'github',
      definition: { command: 'npx', args: ['-y', 'x'] },
    });
  });
  it('unwraps a pasted mcpServers block or named entry, keeping a name the user typed', () => {
    expect(readServerEntry('{"mcpServers": {"docs": {"url": "https://e.com/mcp"}}}', '', true)).toEqual({
      name: 'docs',
      definition: { url: 'https://e.com/mcp' },
    });
    expect(readServerEntry('{"docs": {"command": "docs-mcp"}}', 'mine', true)).toEqual({ name: 'mine', definition: { command: 'docs-mcp' } });
    // Editing a server keeps the JSON as it is: no unwrapping.
    expect(readServerEntry('{"docs": {"command": "docs-mcp"}}', 'docs', false)).toEqual({ name: 'docs', definition: { docs: { command: 'docs-mcp' } } });
  });
  it('says what is wrong with bad JSON, a missing name or a definition that is not an object', () => {
    expect(readServerEntry('{"command": ', 'x', true)).toMatchObject({ error: expect.stringContaining('not valid JSON') });
    expect(readServerEntry('{"command": "npx"}', ' ', true)).toEqual({ error: 'Give the server a name.' });
    expect(readServerEntry('["npx"]', 'x', true)).toEqual({ error: 'The definition must be a JSON object.' });
    expect(readServerEntry('{"a": {"command": "1"}, "b": {"command": "2"}}', '', true)).toEqual({ error: 'Give the server a name.' });
  });
});
