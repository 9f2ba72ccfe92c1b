import { readFile, writeFile } from 'node:fs/promises';
import { z } from 'zod';
import { guardPath } from '../main/agent/infra/policies/path-guard';
import { exactRule, matchPathSubject } from '../main/agent/infra/policies/rule-match';
import { type Tool, type ToolEnv, ToolInputError, access, defineTool } from '../main/agent/contract/tool';

/**
 * Stand-ins for the real Write, Edit and Bash tools (built in their own capabilities) with the same
 * argument shapes and the same permission contract: path tools match rules on the canonical absolute
 * path; Bash carries `Bash(<command>)` as its approval rule and no matcher. Bash here only records
 * the command; it never runs a shell.
 */
function pathRules(tool: string, real: string, display: string, inside: boolean) {
  const relative = inside ? display : undefined;
  return {
    approvalRule: exactRule(tool, real),
    matchesRule: (argument: string) => matchPathSubject(argument, { absolute: real, ...(relative !== undefined ? { relative } : {}) }),
  };
}

async function readOrEmpty(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch {
    return '';
  }
}

export const testWriteTool = defineTool({
  name: 'Write',
  policy: { approval: 'edit', mainAgentOnly: false },
  description: 'Write a file (test stand-in).',
  input: z.object({ path: z.string(), content: z.string() }).strict(),
  resolveExecution: async (args, env: ToolEnv) => {
    const target = await guardPath(args.path, 'write', { environment: env.environment, workspace: env.workspace, extraRoots: env.extraRoots });
    const before = await readOrEmpty(target.real);
    return {
      accesses: access.writeFile(target.real),
      description: `Write ${target.display}`,
      display: { kind: 'diff', path: target.display, before, after: args.content },
      ...pathRules('Write', target.real, target.display, target.inside),
      execute: async () => {
        await writeFile(target.real, args.content);
        return { output: `Wrote ${target.display} (${args.content.length} characters).` };
      },
    };
  },
});

export const testEditTool = defineTool({
  name: 'Edit',
  policy: { approval: 'edit', mainAgentOnly: false },
  description: 'Replace text in a file (test stand-in).',
  input: z.object({ path: z.string(), old_string: z.string(), new_string: z.string() }).strict(),
  resolveExecution: async (args, env: ToolEnv) => {
    const target = await guardPath(args.path, 'write', { environment: env.environment, workspace: env.workspace, extraRoots: env.extraRoots });
    const before = await readOrEmpty(target.real);
    if (!before.includes(args.old_string)) throw new ToolInputError(`old_string was not found in ${target.display}.`);
    const after = before.replace(args.old_string, args.new_string);
    return {
      accesses: access.readWriteFile(target.real),
      description: `Edit ${target.display}`,
      display: { kind: 'diff', path: target.display, before, after },
      ...pathRules('Edit', target.real, target.display, target.inside),
      execute: async () => {
        await writeFile(target.real, after);
        return { output: `Edited ${target.display}.` };
      },
    };
  },
});

/** Records the commands it was allowed to "run". */
export function testBashTool(ran: string[] = []) {
  return defineTool({
    name: 'Bash',
    policy: { approval: 'rules', mainAgentOnly: false },
    description: 'Run a shell command (test stand-in: records the command, runs nothing).',
    input: z.object({ command: z.string().min(1) }).strict(),
    resolveExecution: (args, env) => ({
      shell: { command: args.command, cwd: env.workspace, sandboxed: false },
      description: args.command,
      display: { kind: 'command', command: args.command },
      approvalRule: exactRule('Bash', args.command),
      execute: async () => {
        ran.push(args.command);
        return { output: `ran: ${args.command}` };
      },
    }),
  });
}

export function standInTools(ran: string[] = []): Tool[] {
  return [testWriteTool, testEditTool, testBashTool(ran)] as Tool[];
}
