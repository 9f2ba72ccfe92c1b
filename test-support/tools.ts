import { z } from 'zod';
import { type Tool, ToolInputError, access, defineTool } from '../main/agent/contract/tool';

/** Tools that exercise the machinery in tests. */
export const echoTool = defineTool({
  name: 'Echo',
  policy: { approval: 'rules', mainAgentOnly: false },
  description: 'Echo the text back.',
  input: z.object({ text: z.string(), times: z.number().int().min(1).default(1) }),
  resolveExecution: (args) => ({
    accesses: access.none(),
    description: `Echo ${args.text}`,
    display: { kind: 'generic', summary: args.text },
    approvalRule: `Echo(${args.text})`,
    readOnly: true,
    execute: async () => ({ output: Array.from({ length: args.times }, () => args.text).join('\n'), note: '<system>echo note</system>' }),
  }),
});

/** Waits, honouring the abort signal. `path` declares a write access so calls on one path serialise. */
export const waitTool = defineTool({
  name: 'Wait',
  policy: { approval: 'rules', mainAgentOnly: false },
  description: 'Wait for a while.',
  input: z.object({ ms: z.number().int().min(0), path: z.string().optional(), label: z.string().default('') }),
  resolveExecution: (args) => ({
    accesses: args.path ? access.writeFile(args.path) : access.none(),
    description: `Wait ${args.ms} ms`,
    display: { kind: 'generic', summary: `wait ${args.ms}` },
    approvalRule: 'Wait',
    execute: (ctx) =>
      new Promise((resolve) => {
        const timer = setTimeout(() => resolve({ output: `waited ${args.ms} ${args.label}`.trim() }), args.ms);
        ctx.signal.addEventListener('abort', () => {
          clearTimeout(timer);
          resolve({ output: 'Interrupted by user', isError: true });
        });
      }),
  }),
});

/** Ignores the abort signal entirely. */
export const stubbornTool = defineTool({
  name: 'Stubborn',
  policy: { approval: 'rules', mainAgentOnly: false },
  description: 'Never stops early.',
  input: z.object({ ms: z.number().int() }),
  resolveExecution: (args) => ({
    description: 'stubborn',
    display: { kind: 'generic', summary: 'stubborn' },
    approvalRule: 'Stubborn',
    execute: () => new Promise((resolve) => setTimeout(() => resolve({ output: 'finished anyway' }), args.ms)),
  }),
});

export const refusingTool = defineTool({
  name: 'Refuse',
  policy: { approval: 'rules', mainAgentOnly: false },
  description: 'Always refuses at resolve time.',
  input: z.object({ path: z.string() }),
  resolveExecution: (args) => {
    throw new ToolInputError(`${args.path} is outside the workspace. Use an absolute path.`);
  },
});

export const bigOutputTool = defineTool({
  name: 'Big',
  policy: { approval: 'rules', mainAgentOnly: false },
  description: 'Produces a lot of output.',
  input: z.object({ chars: z.number().int() }),
  resolveExecution: (args) => ({
    accesses: access.none(),
    description: 'big',
    display: { kind: 'generic', summary: 'big' },
    approvalRule: 'Big',
    execute: async () => ({
      output: Array.from({ length: Math.ceil(args.chars / 100) + 1 }, (_, i) => `${String(i).padStart(6, '0')} ${'x'.repeat(92)}`)
        .join('\n')
        .slice(0, args.chars),
    }),
  }),
});

export const testTools: Tool[] = [echoTool, waitTool, stubbornTool, refusingTool, bigOutputTool] as Tool[];
