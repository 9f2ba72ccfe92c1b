import type { GetPromptResult, Prompt as McpPrompt } from '@modelcontextprotocol/sdk/types.js';
import type { McpPromptInfo } from '#protocol';
import { mcpToolName } from './naming';

/** A server's prompt as the slash menu lists it: `/mcp__<server>__<prompt>`, named as its tools are. */
export function promptInfo(server: string, prompt: McpPrompt): McpPromptInfo {
  return {
    command: mcpToolName(server, prompt.name),
    serverPrompt: prompt.name,
    description: (prompt.description ?? '').trim().split('\n')[0]!.slice(0, 300),
    arguments: (prompt.arguments ?? []).map((a) => ({
      name: a.name,
      ...(a.description ? { description: a.description } : {}),
      ...(a.required ? { required: true } : {}),
    })),
  };
}

/** How the command is typed, for errors and the menu's hint: `/cmd <required> [optional]`. */
export function promptUsage(info: McpPromptInfo): string {
  return [`/${info.command}`, ...info.arguments.map((a) => (a.required ? `<${a.name}>` : `[${a.name}]`))].join(' ');
}

/**
 * The words after the command, given to the prompt's arguments in order; the last argument takes the rest
 * of the text. Throws, saying how the command is typed, when a required argument is missing.
 */
export function promptArguments(info: McpPromptInfo, text: string): Record<string, string> {
  const args: Record<string, string> = {};
  let rest = text.trim();
  info.arguments.forEach((argument, index) => {
    if (!rest) return;
    if (index === info.arguments.length - 1) {
      args[argument.name] = rest;
      rest = '';
      return;
    }
    const match = /^(\S+)\s*([\s\S]*)$/.exec(rest)!;
    args[argument.name] = match[1]!;
    rest = match[2]!;
  });
  const missing = info.arguments.filter((a) => a.required && !(a.name in args)).map((a) => a.name);
  if (missing.length) throw new Error(`${promptUsage(info)}: ${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} required.`);
  if (rest)
    throw new Error(
      `${promptUsage(info)} takes ${info.arguments.length ? `at most ${info.arguments.length} argument${info.arguments.length === 1 ? '' : 's'}` : 'no arguments'}.`,
    );
  return args;
}

/** The prompt a server returned, as the text of one user message (its own turns marked when it has several). */
export function promptText(result: GetPromptResult): string {
  const parts = result.messages.map((message) => {
    const content = message.content;
    const text =
      content.type === 'text'
        ? content.text
        : content.type === 'resource'
          ? 'text' in content.resource
            ? `[${content.resource.uri}]\n${content.resource.text}`
            : `[${content.resource.uri}: binary, not shown]`
          : content.type === 'resource_link'
            ? `[${content.name}: ${content.uri}]`
            : `[${content.type} not shown]`;
    return { role: message.role, text };
  });
  const single = parts.every((p) => p.role === 'user');
  return parts.map((p) => (single ? p.text : `${p.role === 'user' ? 'User' : 'Assistant'}: ${p.text}`)).join('\n\n');
}
