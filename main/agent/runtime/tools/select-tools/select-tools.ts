import { z } from 'zod';
import { type Tool, access, defineTool } from '#contract/tool';
import { closeNames } from '#infra/platform/close-names';
import type { ToolRegistry } from '../registry';
import description from './select-tools.md?raw';
import { toolInput, type SchemaOf } from '#contract/tool-input';

export const SELECT_TOOLS = 'select_tools';

const Input = toolInput(SELECT_TOOLS, () => z.object({ names: z.array(z.string().min(1).max(200)).min(1).max(100) }).strict());

/**
 * select_tools: offer deferred tools from the next step on. Each name is settled on its own (Loaded,
 * Already available, Unknown with close names); the call is an error only when every name is unknown.
 */
export function selectToolsTool(registry: ToolRegistry): Tool<SchemaOf<typeof Input>> {
  return defineTool({
    name: SELECT_TOOLS,
    policy: { approval: 'rules', mainAgentOnly: false },
    description,
    input: Input,
    resolveExecution: ({ names }) => ({
      accesses: access.none(),
      readOnly: true,
      description: `Load ${names.length === 1 ? names[0] : `${names.length} tools`}`,
      display: { kind: 'generic', summary: 'select_tools', detail: names.join(', ') },
      approvalRule: SELECT_TOOLS,
      execute: async () => {
        const lines: string[] = [];
        let failed = 0;
        for (const name of [...new Set(names)]) {
          const outcome = registry.select(name);
          if (outcome === 'selected') lines.push(`Loaded: ${name}`);
          else if (outcome === 'already offered') lines.push(`Already available: ${name}`);
          else {
            failed++;
            const close = closeNames(name, registry.deferredNames());
            lines.push(`Unknown: ${name}${close.length ? ` (close names: ${close.join(', ')})` : ''}`);
          }
        }
        const loaded = lines.some((l) => l.startsWith('Loaded'));
        const text = lines.join('\n') + (loaded ? '\nLoaded tools can be called from your next step.' : '');
        return { output: text, ...(failed === new Set(names).size ? { isError: true } : {}), display: { kind: 'text', text } };
      },
    }),
  });
}
