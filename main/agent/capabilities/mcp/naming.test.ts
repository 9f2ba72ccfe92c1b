import { describe, expect, it } from 'vitest';
import { MAX_TOOL_NAME, mcpToolName } from './naming';

describe('mcpToolName', () => {
  it('is mcp__<server>__<tool>, sanitised to [A-Za-z0-9_-]', () => {
    expect(mcpToolName('github', 'create_issue')).toBe('mcp__github__create_issue');
    expect(mcpToolName('my.server', 'odd.name with spaces/é')).toBe('mcp__my_server__odd_name_with_spaces__');
  });

  it('caps long names at 64 characters with a hash tail that keeps two long names apart', () => {
    const a = mcpToolName('server', 'a_tool_with_a_remarkably_long_name_that_goes_on_and_on_past_the_limit_1');
    const b = mcpToolName('server', 'a_tool_with_a_remarkably_long_name_that_goes_on_and_on_past_the_limit_2');
    expect(a).toHaveLength(MAX_TOOL_NAME);
    expect(a).toMatch(/^mcp__server__a_tool_with.*_[0-9a-f]{8}$/);
    expect(a).not.toBe(b);
    expect(mcpToolName('server', 'a_tool_with_a_remarkably_long_name_that_goes_on_and_on_past_the_limit_1')).toBe(a);
  });
});
